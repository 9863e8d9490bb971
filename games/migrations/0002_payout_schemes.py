"""Seed the payout schemes of RULES §6."""

from django.db import migrations

SCHEMES = {
    2: [100, 0],
    3: [80, 20, 0],
    4: [60, 30, 10, 0],
    5: [50, 30, 15, 5, 0],
    6: [40, 30, 15, 10, 5, 0],
}


def seed(apps, schema_editor):
    PayoutScheme = apps.get_model("games", "PayoutScheme")
    for players, percentages in SCHEMES.items():
        PayoutScheme.objects.update_or_create(
            players=players, defaults={"percentages": percentages}
        )


def unseed(apps, schema_editor):
    apps.get_model("games", "PayoutScheme").objects.filter(players__in=SCHEMES).delete()


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(seed, unseed)]
