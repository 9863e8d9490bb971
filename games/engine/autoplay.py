"""The server's moves for every idle seat (RULES.md §5), played on: where they lead."""

from __future__ import annotations

import json

from .game import Game

# The server's moves for idle players are deterministic, so from any position they either end
# the game or come back to a position already seen; both happen within a few hundred moves.
# Play that goes beyond this many moves is counted as endless.
AUTO_PLAY_LIMIT = 20_000


def auto_play_is_endless(game: Game) -> bool:
    """Whether the server's moves for every seat would go on forever from here.

    With three or more players left, auto-take, auto-pass and the lowest lead can pass the same
    cards round the table for ever; such play comes back to a position it has already reached.
    """
    game = game.copy()
    seen: set[str] = set()
    for _move in range(AUTO_PLAY_LIMIT):
        if game.finished:
            return False
        position = game.to_dict()
        del position["bouts"]  # a counter, not part of the position
        key = json.dumps(position, sort_keys=True)
        if key in seen:
            return True
        seen.add(key)
        seat = game.waiting_for[0]
        game.apply(seat, game.timeout_action(seat))
    return True


def final_places(game: Game, *, stalemate: bool) -> list[list[int]]:
    """The places of an ended game; after a stalemate everyone still in shares the last."""
    if not stalemate:
        return game.places
    return [*game.places, game.still_in]
