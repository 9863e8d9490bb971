"""Tournaments played by bots on the live tables, under a clock the tests pass in."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games.engine import Game as EngineGame
from games.engine.bots import decide
from games.models import Game
from games.services import game_apply_action, game_timeout
from tests.games.conftest import (  # noqa: F401  (the live tables' fixtures)
    fixed_seeds,
    fresh_channel_layer,
    no_presence_left,
    web_serving,
)
from tournaments.models import Tournament, TournamentGame


def play_out(game: Game, users: dict[int, object], idle: frozenset[int] = frozenset()) -> None:
    """Every seat's moves chosen by a bot and sent as the player's, until the game ends; for
    the `idle` players the server moves once their deadline has passed."""
    engine = EngineGame.from_dict(game.state)
    log: list[dict] = []
    version = game.version
    while not engine.finished:
        position = engine.waiting_for[0]
        if game.players[position] in idle:
            Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            game_timeout(game_id=game.pk, version=version)
            game.refresh_from_db()
            if game.status != Game.Status.PLAYING:
                return
            engine, version = EngineGame.from_dict(game.state), game.version
            log = list(game.events.order_by("version").values("bout", "seat", "action"))
            continue
        action = decide(engine.view(position), log, "novice")
        game = game_apply_action(
            game_id=game.pk,
            user=users[game.players[position]],
            action=action,
            expected_version=version,
        )
        if game.status != Game.Status.PLAYING:
            return
        log.append({"bout": engine.bouts, "seat": position, "action": action})
        engine.apply(position, action)
        version += 1


def play_running(tournament: Tournament, users: dict[int, object]) -> int:
    """Play out every game of the tournament that is running now; how many there were."""
    games = [
        tournament_game.game
        for tournament_game in TournamentGame.objects.filter(
            tournament=tournament, finished=False
        ).select_related("game")
    ]
    for game in games:
        play_out(game, users)
    return len(games)


class Clock:
    """The tournaments' clock in a test: it starts at the real time and only moves forward."""

    def __init__(self) -> None:
        self.now = timezone.now()

    def advance(self, **delta: float) -> datetime:
        self.now = max(self.now + timedelta(**delta), timezone.now())
        return self.now
