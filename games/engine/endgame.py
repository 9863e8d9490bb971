"""Exact play of endgames: the talon is empty and two players are left, so every card is known.

The side to move is the first seat the game waits for (as the server's bots and its moves for
idle players take turns). Both sides play perfectly: each avoids being the durak if it can, and
prefers the other being the durak to a draw. A position that comes back on the line of play
counts as a draw. The search remembers the value of every position whose value does not depend
on that line, so each is solved once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .game import Game

Action = dict[str, Any]
# Outcomes, from the point of view of the lower of the two seats left.
LOSS, DRAW, WIN = 0, 1, 2
# The most new positions one solve may visit: beyond it the endgame is too big to solve here.
NODE_LIMIT = 20_000
# Puzzles come from endgames with at most this many cards in the two hands and on the table.
PUZZLE_CARDS = 10


class TooBig(Exception):
    """The endgame needs more than the node limit to solve."""


def is_endgame(game: Game) -> bool:
    """The talon is empty, two players are left and the game waits for one of them."""
    return not game.finished and game.talon_size == 0 and len(game.still_in) == 2


def position_key(game: Game) -> str:
    """What decides the rest of the game: the whole state but the bout counter and the seed."""
    state = game.to_dict()
    del state["bouts"], state["seed"]
    return json.dumps(state, sort_keys=True)


class Solver:
    """Perfect play of endgames, sharing what it learns between positions of one game."""

    def __init__(self, node_limit: int = NODE_LIMIT) -> None:
        self.node_limit = node_limit
        self.nodes = 0
        self._known: dict[str, int] = {}
        self._line: set[str] = set()

    def outcome(self, game: Game) -> int:
        """LOSS, DRAW or WIN for the lower seat left, with perfect play from `game`."""
        if not is_endgame(game):
            raise ValueError("not an endgame: the talon must be empty and two players left")
        self.nodes = 0
        return self._search(game, min(game.still_in))[0]

    def escaping_moves(self, game: Game) -> tuple[int, list[Action]]:
        """The side to move, and those of its legal moves after which it is not the durak."""
        if not is_endgame(game):
            raise ValueError("not an endgame: the talon must be empty and two players left")
        self.nodes = 0
        low = min(game.still_in)
        seat = game.waiting_for[0]
        escaping = []
        key = position_key(game)
        self._line.add(key)  # the moves are judged as the search judges them from here
        try:
            for action in game.legal_actions(seat):
                child = game.copy()
                child.apply(seat, action)
                value = self._search(child, low)[0]
                if value != (LOSS if seat == low else WIN):
                    escaping.append(action)
        finally:
            self._line.discard(key)
        return seat, escaping

    def _search(self, game: Game, low: int) -> tuple[int, bool]:
        """(outcome for `low`, whether it leaned on a position of the current line)."""
        if game.finished:
            durak = game.durak
            return (DRAW if durak is None else LOSS if durak == low else WIN), False
        key = position_key(game)
        if key in self._known:
            return self._known[key], False
        if key in self._line:
            return DRAW, True
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise TooBig(f"more than {self.node_limit} positions")
        seat = game.waiting_for[0]
        maximising = seat == low
        goal = WIN if maximising else LOSS
        best: int | None = None
        leaned = False
        self._line.add(key)
        try:
            for action in game.legal_actions(seat):
                child = game.copy()
                child.apply(seat, action)
                value, child_leaned = self._search(child, low)
                leaned |= child_leaned
                if best is None or (value > best if maximising else value < best):
                    best = value
                if best == goal:
                    break
        finally:
            self._line.discard(key)
        assert best is not None  # a seat the game waits for always has a move
        if not leaned:
            self._known[key] = best
        return best, leaned


@dataclass(frozen=True)
class Puzzle:
    """An endgame position where exactly one move keeps the side to move from being the durak."""

    state: dict[str, Any]  # Game.to_dict() of the position, the seed left out
    seat: int
    answer: Action
    moves: int  # how many legal moves the side to move had


def endgame_puzzle(game: Game, solver: Solver | None = None) -> Puzzle | None:
    """The puzzle this position makes, or None: not an endgame, one legal move only, more than
    one escaping move, none at all, or too big to solve."""
    if not is_endgame(game):
        return None
    cards = sum(len(game.hand(seat)) for seat in game.still_in)
    if cards + sum(1 + (pair["defense"] is not None) for pair in game.table) > PUZZLE_CARDS:
        return None
    seat = game.waiting_for[0]
    legal = game.legal_actions(seat)
    if len(legal) < 2:
        return None
    try:
        seat, escaping = (solver or Solver()).escaping_moves(game)
    except TooBig:
        return None
    if len(escaping) != 1:
        return None
    return Puzzle({**game.to_dict(), "seed": None}, seat, escaping[0], len(legal))
