from celery import shared_task

from durak_site import backups


@shared_task
def nightly_backup() -> str:
    """The scheduled backup (NIGHTLY_BACKUP_AT); the same as ``./dev backup``."""
    return str(backups.create_backup())
