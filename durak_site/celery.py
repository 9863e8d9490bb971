import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")

app = Celery("durak_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_postrun.connect
def drop_broken_connections(**kwargs) -> None:
    """Workers keep their database connection across tasks: replace it once broken or old."""
    from django.db import close_old_connections

    close_old_connections()
