from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.services.rating import rating_rebuild


class Command(BaseCommand):
    help = (
        "Recompute every skill rating from the finished games with stakes and report each "
        "player whose stored rating differs; --fix stores the recomputed ratings. Exits non-zero "
        "on a difference left unfixed."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--fix", action="store_true", help="store the recomputed ratings")

    def handle(self, *args, fix: bool, **options) -> None:
        replayed, differences = rating_rebuild(fix=fix)
        for difference in differences:
            self.stdout.write(
                self.style.ERROR(
                    f"DIFFERENCE: player {difference.user_id}: stored {_shown(difference.stored)}, "
                    f"recomputed {_shown(difference.recomputed)}"
                )
            )
        if differences and not fix:
            raise CommandError(f"{len(differences)} rating(s) differ from the history")
        fixed = f", {len(differences)} fixed" if differences else ""
        self.stdout.write(self.style.SUCCESS(f"ratings OK: {replayed} games replayed{fixed}"))


def _shown(values: tuple[float, float, int] | None) -> str:
    if values is None:
        return "none"
    mu, sigma, games = values
    return f"mu {mu:.6f} sigma {sigma:.6f} over {games} games"
