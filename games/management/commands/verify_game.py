from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.selectors.replay import verify_game


class Command(BaseCommand):
    help = (
        "Replay a game from its seed and events; check the seed hash, the stored state, the "
        "places and the payouts. Exits non-zero on any mismatch."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("game_id", type=int)

    def handle(self, *args, game_id: int, **options) -> None:
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(f"no game {game_id}")
        problems = verify_game(game)
        for problem in problems:
            self.stdout.write(self.style.ERROR(f"MISMATCH: {problem}"))
        if problems:
            raise CommandError(f"game {game_id}: {len(problems)} mismatch(es)")
        self.stdout.write(
            self.style.SUCCESS(f"OK game {game_id}: seed, {game.version} events, state and payouts")
        )
