from django.db import migrations, models


def options_fields(model_name: str) -> list:
    return [
        migrations.AddField(
            model_name=model_name,
            name="transfer",
            field=models.BooleanField(default=True, verbose_name="transfer"),
        ),
        migrations.AddField(
            model_name=model_name,
            name="deck",
            field=models.PositiveSmallIntegerField(
                choices=[
                    (24, "24 cards, 9 to ace"),
                    (36, "36 cards, 6 to ace"),
                    (52, "52 cards, 2 to ace"),
                ],
                default=36,
                verbose_name="deck",
            ),
        ),
        migrations.AddField(
            model_name=model_name,
            name="throw_in",
            field=models.CharField(
                choices=[("all", "everyone throws in"), ("neighbours", "the defender's neighbours throw in")],
                default="all",
                max_length=10,
                verbose_name="who throws in",
            ),
        ),
        migrations.AddField(
            model_name=model_name,
            name="limit",
            field=models.CharField(
                choices=[
                    ("zavala", "do zavala"),
                    ("classic", "classic"),
                ],
                default="zavala",
                max_length=7,
                verbose_name="limits",
            ),
        ),
    ]


def options_constraints(model_name: str, prefix: str) -> list:
    return [
        migrations.AddConstraint(
            model_name=model_name,
            constraint=models.CheckConstraint(
                condition=models.Q(("deck__in", [24, 36, 52])), name=f"{prefix}_deck_choices"
            ),
        ),
        migrations.AddConstraint(
            model_name=model_name,
            constraint=models.CheckConstraint(
                condition=models.Q(("throw_in__in", ["all", "neighbours"])),
                name=f"{prefix}_throw_in_choices",
            ),
        ),
        migrations.AddConstraint(
            model_name=model_name,
            constraint=models.CheckConstraint(
                condition=models.Q(("limit__in", ["zavala", "classic"])),
                name=f"{prefix}_limit_choices",
            ),
        ),
    ]


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_clock_stop"),
    ]

    operations = [
        *options_fields("table"),
        *options_fields("game"),
        migrations.AddConstraint(
            model_name="table",
            constraint=models.CheckConstraint(
                condition=models.Q(("deck", 24), _negated=True)
                | models.Q(("seat_count__lte", 4)),
                name="games_table_24_cards_4_seats",
            ),
        ),
        *options_constraints("table", "games_table"),
        *options_constraints("game", "games_game"),
    ]
