from __future__ import annotations

import secrets

from allauth.account.models import EmailAddress
from django.db import transaction

from durak_site.accounts.models import User

ADMIN_NICKNAME = "admin"
ADMIN_EMAIL = "admin@localhost"


@transaction.atomic
def admin_create_first() -> str | None:
    """Create the first staff account if there is no superuser yet; return its new password.

    The password is generated here and returned once; it is stored only as a hash.
    """
    if User.objects.filter(is_superuser=True).exists():
        return None
    password = secrets.token_urlsafe(12)
    user = User.objects.create_superuser(
        username=ADMIN_NICKNAME, email=ADMIN_EMAIL, password=password
    )
    EmailAddress.objects.create(user=user, email=ADMIN_EMAIL, verified=True, primary=True)
    return password
