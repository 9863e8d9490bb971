import logging
import os

from celery import Celery, signals
from celery.worker.consumer import Consumer

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")

app = Celery("durak_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
logger = logging.getLogger(__name__)


class BrokerLossConsumer(Consumer):
    """A worker's consumer that survives its broker connection breaking while it holds tasks.

    Celery 5.7 detaches the broken connection's transport before closing it, so handing the
    unacknowledged messages back fails with ``AttributeError`` ("'NoneType' object has no
    attribute 'hostname'") and the worker stops. The messages stay in Redis's unacked set, which
    restores them after the visibility timeout; the consumer goes on to reconnect. (A task that
    finishes after the reconnect fails the same way acknowledging on the old channel, so the one
    long task, the deadline loop, is acknowledged when it starts.)
    """

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            logger.warning("the broker connection broke while tasks were held; reconnecting")


@signals.task_postrun.connect
def drop_broken_connections(**kwargs) -> None:
    """Workers keep their database connection across tasks: replace it once broken or old."""
    from django.db import close_old_connections

    close_old_connections()
