from __future__ import annotations

import secrets

from allauth.account.models import EmailAddress
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext as _

from durak_site.accounts.models import TableSettings, User

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


TABLE_SETTING_FIELDS = (
    "hand_order",
    "card_size",
    "sound",
    "confirm_take",
    "motion",
    "notifications",
)


def table_settings_of(*, user) -> dict[str, object]:
    """The player's table settings, the defaults where he has changed nothing (or is anonymous)."""
    settings = TableSettings.objects.filter(user_id=user.pk).first() or TableSettings()
    return {field: getattr(settings, field) for field in TABLE_SETTING_FIELDS}


def table_settings_update(*, user, changes: dict[str, object]) -> dict[str, object]:
    """Change some of the player's table settings; raises ValidationError and saves nothing
    when a name or a value is not one of the settings'."""
    unknown = set(changes) - set(TABLE_SETTING_FIELDS)
    if unknown:
        raise ValidationError({name: _("No such setting.") for name in sorted(unknown)})
    with transaction.atomic():
        settings, _created = TableSettings.objects.select_for_update().get_or_create(user=user)
        for field, value in changes.items():
            if isinstance(
                TableSettings._meta.get_field(field), models.BooleanField
            ) and not isinstance(value, bool):
                raise ValidationError({field: _("Choose on or off.")})
            setattr(settings, field, value)
        settings.full_clean(exclude=["user"])
        settings.save()
    return table_settings_of(user=user)
