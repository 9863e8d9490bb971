"""Nicknames get their look-alike key; existing look-alikes are reported, not renamed."""

from django.core.exceptions import ValidationError
from django.db import migrations, models

import durak_site.accounts.models
import durak_site.accounts.nicknames


def fill_keys(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    owners: dict[str, object] = {}
    for user in User.objects.order_by("date_joined", "pk"):
        try:
            durak_site.accounts.nicknames.validate(user.username)
        except ValidationError as error:
            print(f"\n  nickname {user.username!r} (id {user.pk}): {error.messages[0]}")
        key = durak_site.accounts.nicknames.skeleton(user.username)
        if key in owners:
            # The older account keeps the key; the newer one stays unique by its id, and staff
            # are told to rename it.
            print(f"\n  nickname clash: {user.username!r} (id {user.pk}) looks like "
                  f"{owners[key].username!r} (id {owners[key].pk})")
            key = f"{key}#{user.pk}"
        owners[key] = user
        user.nickname_key = key
        user.save(update_fields=["nickname_key"])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_table_settings"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="nickname_key",
            field=models.CharField(editable=False, max_length=100, null=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="user",
            name="nickname_key",
            field=models.CharField(editable=False, max_length=100, unique=True),
        ),
        migrations.AlterField(
            model_name="user",
            name="username",
            field=models.CharField(
                error_messages={"unique": "This nickname is already taken."},
                max_length=24,
                unique=True,
                validators=[
                    durak_site.accounts.models.NicknameValidator(),
                    durak_site.accounts.nicknames.validate,
                ],
                verbose_name="nickname",
            ),
        ),
    ]
