from django.core.management.base import BaseCommand

from durak_site.push import vapid


class Command(BaseCommand):
    help = "Print a new VAPID key pair for Web Push, as the two environment variables to set."

    def handle(self, *args, **options) -> None:
        private, public = vapid.generate()
        self.stdout.write(f"VAPID_PRIVATE_KEY={private}\nVAPID_PUBLIC_KEY={public}")
