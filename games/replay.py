"""Replaying a game from its seed and its event log (the provably fair deal)."""

from __future__ import annotations

from games.engine import Game as EngineGame
from games.models import Game


def replay_game(game: Game) -> list[EngineGame]:
    """Engine snapshots: index 0 is the deal from the seed, index v the state after version v.

    Raises ValueError (IllegalAction included) if the log does not replay.
    """
    engine = EngineGame.new(players=len(game.players), seed=game.seed)
    snapshots = [engine.copy()]
    for event in game.events.order_by("version"):
        if event.version != len(snapshots):
            raise ValueError(f"the event log skips from version {len(snapshots) - 1}")
        engine.apply(event.seat, event.action)
        snapshots.append(engine.copy())
    return snapshots
