from django.core.management.base import BaseCommand

from durak_site.accounts.services import ADMIN_EMAIL, admin_create_first


class Command(BaseCommand):
    help = "Create the first staff account (if none exists) and print its password once."

    def handle(self, *args, **options) -> None:
        password = admin_create_first()
        if password is None:
            self.stdout.write("A staff account already exists.")
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"Staff account created: log in as {ADMIN_EMAIL} with password {password}\n"
                "This password is shown only now; change it under /accounts/password/change/."
            )
        )
