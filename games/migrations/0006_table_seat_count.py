from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_game_status_without_cancelled"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="table", name="games_table_seats_2_6"),
        migrations.RenameField(model_name="table", old_name="seats", new_name="seat_count"),
        migrations.AddConstraint(
            model_name="table",
            constraint=models.CheckConstraint(
                condition=models.Q(("seat_count__gte", 2), ("seat_count__lte", 6)),
                name="games_table_seats_2_6",
            ),
        ),
    ]
