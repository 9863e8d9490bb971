from django.core.management.base import BaseCommand, CommandError

from durak_site.ops import backups


class Command(BaseCommand):
    help = (
        "Dump the platform's database (pg_dump, custom format) into BACKUP_DIR (var/backups/) "
        "with a UTC timestamp, keeping the newest BACKUP_KEEP files."
    )

    def handle(self, *args, **options) -> None:
        try:
            path = backups.create_backup()
        except backups.BackupError as error:
            raise CommandError(str(error)) from error
        size = path.stat().st_size
        self.stdout.write(self.style.SUCCESS(f"backup written: {path} ({size:,} bytes)"))
