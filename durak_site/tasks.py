from celery import shared_task

from durak_site.accounts import identity
from durak_site.ops import backups


@shared_task
def nightly_backup() -> str:
    """The scheduled backup (NIGHTLY_BACKUP_AT); the same as ``./dev backup``."""
    return str(backups.create_backup())


@shared_task(name="durak_site.tasks.purge_identity_documents", ignore_result=True)
def purge_identity_documents() -> int:
    """Hourly (Celery beat): closed accounts' identity documents past the retention period."""
    return identity.documents_purge()
