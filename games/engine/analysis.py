"""Post-game analysis: at each of a seat's decisions, its chance of being the durak.

A decision is judged from exactly what the seat could know then, its ``view`` and the public
move log, with the Мастер's determinized search (``bots.search_escapes``): unseen cards are
dealt at random, consistently with the view, and each move is played out on the same deals.
The played move is compared with the best of the Мастер's candidates. Hidden cards, the talon
order and the seed never enter the estimate.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .bots import Action, Log, View, candidate_moves, search_escapes
from .game import Game

Event = dict[str, Any]


@dataclass(frozen=True)
class Decision:
    """One of the seat's moves: the chance of being the durak after it and after the best."""

    version: int  # the game's version before the move (its event is version + 1)
    view: View
    played: Action
    best: Action
    durak_played: float
    durak_best: float

    @property
    def cost(self) -> float:
        """How much the played move raised the chance of being the durak over the best one."""
        return self.durak_played - self.durak_best


def seat_decisions(
    start: Game, events: Sequence[Event], seat: int
) -> Iterator[tuple[int, View, Log, Action]]:
    """Each move of `seat` that was a choice: (version before it, the seat's view, the public
    log up to it, the move). Moves the server made for an idle seat are not his choices."""
    game = start.copy()
    for version, event in enumerate(events):
        if event["seat"] == seat and not event.get("automatic"):
            view = game.view(seat)
            if len(view["legal_actions"]) > 1:
                yield version, view, events[:version], event["action"]
        game.apply(event["seat"], event["action"])


def judge_decision(
    view: View, log: Log, played: Action, *, deals: int, seconds: float, rng: random.Random
) -> tuple[Action, float, float] | None:
    """(best move, durak chance after the played move, after the best) from the seat's view;
    None when the budget ran out before one whole deal."""
    actions = candidate_moves(view)
    if played not in actions:
        actions.append(played)
    escapes, done = search_escapes(
        view, log, actions, rng, deals=deals, deadline=time.perf_counter() + seconds
    )
    if not done:
        return None
    chances = [1 - escaped / done for escaped in escapes]
    best = min(range(len(actions)), key=lambda index: chances[index])
    return actions[best], chances[actions.index(played)], chances[best]


def analyse_seat(
    start: Game,
    events: Sequence[Event],
    seat: int,
    *,
    deals: int,
    seconds: float,
    seed: int | str,
    progress: Callable[[int, int], None] | None = None,
) -> list[Decision]:
    """Judge every decision of `seat` in the game from `start` through `events` (dicts with
    ``seat``, ``action``, ``bout`` and optionally ``automatic``).

    `deals` and `seconds` bound the search of each decision; each decision's deals come from
    its own generator seeded by `seed` and its version, so the result does not depend on what
    was judged before. `progress(done, total)` is called after each decision.
    """
    decisions = list(seat_decisions(start, events, seat))
    judged = []
    for done, (version, view, log, played) in enumerate(decisions, start=1):
        rng = random.Random(f"{seed}:{version}")
        verdict = judge_decision(view, log, played, deals=deals, seconds=seconds, rng=rng)
        if verdict is not None:
            best, durak_played, durak_best = verdict
            judged.append(Decision(version, view, played, best, durak_played, durak_best))
        if progress is not None:
            progress(done, len(decisions))
    return judged
