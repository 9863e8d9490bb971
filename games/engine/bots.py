"""A heuristic durak player: server auto-moves, load tests and practice tables.

The bot sees only what its seat may see (`Game.view(seat)`) and only ever returns one of
that seat's legal actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .cards import RANKS
from .game import Game

Action = dict[str, Any]
CardValue = Callable[[str], int]
# Plain cards this high or higher are kept back from throw-ins while the talon lasts.
KEEP_FROM_RANK = RANKS.index("Q")
# With an rng, this share of moves is a random legal one: deterministic bots can pass the
# same cards round forever in an endgame, and a little noise always breaks such a cycle.
EXPLORE = 0.05


def choose_action(game: Game, seat: int, rng: random.Random | None = None) -> Action | None:
    """The bot's action for `seat`; None when it may not act or prefers to wait.

    Never None while the game waits for `seat`. Without `rng` the choice is deterministic.
    """
    view = game.view(seat)
    legal = view["legal_actions"]
    if not legal:
        return None
    if rng is not None and rng.random() < EXPLORE:
        return rng.choice(legal)
    trump = view["trump_suit"]

    def value(code: str) -> int:
        """Rank order with every trump above every plain card."""
        return RANKS.index(code[0]) + (len(RANKS) if code[1] == trump else 0)

    if not view["table"]:
        return _lead(legal, value)
    if seat == view["defender"]:
        return _defend(view, legal, value)
    return _throw(view, legal, value)


def _lead(legal: list[Action], value: CardValue) -> Action:
    """Lead the lowest rank, all its plain cards at once; trumps only when nothing else."""
    plain = [
        action for action in legal if all(value(card) < len(RANKS) for card in action["cards"])
    ]
    return min(
        plain or legal, key=lambda action: (value(action["cards"][0]), -len(action["cards"]))
    )


def _defend(view: dict[str, Any], legal: list[Action], value: CardValue) -> Action:
    beats = _cheapest_beats(view, legal, value)
    transfers = sorted(
        (action for action in legal if action["type"] == "transfer"),
        key=lambda action: value(action["cards"][0]),
    )
    if transfers:
        card_value = value(transfers[0]["cards"][0])
        # Passing the attack on with a plain card costs nothing it would not cost to beat;
        # with a trump it only pays when beating is impossible or dearer.
        if card_value < len(RANKS) or beats is None or sum(map(value, beats.values())) > card_value:
            return transfers[0]
    if beats is None:
        return {"type": "take"}
    attack, card = next(iter(beats.items()))
    return {"type": "defend", "attack": attack, "card": card}


def _cheapest_beats(
    view: dict[str, Any], legal: list[Action], value: CardValue
) -> dict[str, str] | None:
    """Greedy plan beating every unbeaten card, the dearest attack first; None if none found."""
    options: dict[str, list[str]] = {}
    for action in legal:
        if action["type"] == "defend":
            options.setdefault(action["attack"], []).append(action["card"])
    unbeaten = [pair["attack"] for pair in view["table"] if pair["defense"] is None]
    plan: dict[str, str] = {}
    for attack in sorted(unbeaten, key=value, reverse=True):
        free = [card for card in options.get(attack, []) if card not in plan.values()]
        if not free:
            return None
        plan[attack] = min(free, key=value)
    return plan


def _throw(view: dict[str, Any], legal: list[Action], value: CardValue) -> Action | None:
    """Throw the cheapest matching card worth giving away, else pass when waited for."""

    def worth_giving(code: str) -> bool:
        if view["talon_size"] == 0:  # endgame: every card shed counts
            return True
        plain = value(code) < len(RANKS)
        return plain and (view["taking"] or value(code) < KEEP_FROM_RANK)

    throws = [
        action
        for action in legal
        if action["type"] == "attack" and worth_giving(action["cards"][0])
    ]
    if throws:
        return min(throws, key=lambda action: value(action["cards"][0]))
    if {"type": "pass"} in legal:
        return {"type": "pass"}
    return None


def play_to_end(game: Game, rng: random.Random, max_steps: int = 100_000) -> Game:
    """Let bots play every seat until the game finishes; returns the same game.

    Each step the seats are asked in turn from the attacker; the first that acts moves.
    """
    for _ in range(max_steps):
        if game.finished:
            return game
        start = game.attacker
        for step in range(game.players):
            seat = (start + step) % game.players
            action = choose_action(game, seat, rng)
            if action is not None:
                game.apply(seat, action)
                break
        else:
            raise RuntimeError("no bot would act although the game is not finished")
    raise RuntimeError(f"the game did not finish in {max_steps} steps")
