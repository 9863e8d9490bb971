"""Durak bots at three strengths: practice tables, server auto-moves, load tests, the arena.

A bot decides from exactly what its seat may know: the seat's ``view`` (``Game.view(seat)``)
and the public move log, the list of moves every seat saw, oldest first, each a dict with at
least ``bout``, ``seat`` and ``action`` (the ``events`` of the table state). It never sees a
``Game``, the talon order or the seed, and only ever returns one of the view's legal actions.

- ``NOVICE`` (Новичок): plays the obvious card, never transfers, and often simply errs.
- ``AMATEUR`` (Любитель): a heuristic that saves trumps and high cards while the talon lasts.
- ``MASTER`` (Мастер): determinized Monte Carlo search. It deals the cards it cannot see at
  random, consistently with everything its seat saw (cards a player took and has not played
  since are known to be in his hand), plays each sensible move forward with the Любитель's
  heuristic for every seat, and keeps the move that left it the durak least often. It stops
  at a playout cap or a wall-clock deadline, whichever comes first.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from .cards import CARD_CODES, HAND_SIZE, RANKS, SUITS, deck_codes
from .game import Game

Action = dict[str, Any]
View = dict[str, Any]
Log = Sequence[dict[str, Any]]
CardValue = Callable[[str], int]

NOVICE = "novice"
AMATEUR = "amateur"
MASTER = "master"
LEVELS = (NOVICE, AMATEUR, MASTER)

TAKE: Action = {"type": "take"}
PASS: Action = {"type": "pass"}
# Plain cards this high or higher are kept back from throw-ins while the talon lasts.
KEEP_FROM_RANK = RANKS.index("Q")
# While this many cards remain in the talon, a defender takes low plain cards rather than
# spend a trump this high or higher on them.
SAVE_TRUMP_TALON = 10
SAVE_TRUMP_FROM_RANK = RANKS.index("Q")
LOW_PLAIN_BELOW_RANK = RANKS.index("T")
# With an rng, this share of the Любитель's moves is a random legal one: deterministic bots
# can pass the same cards round forever in an endgame, and a little noise breaks such a cycle.
EXPLORE = 0.05
# The share of the Новичок's moves that are a random legal one.
NOVICE_BLUNDER = 0.3
# The Мастер's budget: at most this many determinized deals per decision, and never past
# the deadline (seconds after the call). The cap keeps decisions quick on an idle machine;
# the deadline keeps them on time on a loaded one.
MASTER_DEALS = 24
MASTER_SECONDS = 0.2
# A playout that runs this long is a cycle of moves; it counts as a draw.
PLAYOUT_STEPS = 600


def decide(
    view: View,
    log: Log,
    level: str = AMATEUR,
    rng: random.Random | None = None,
    *,
    seconds: float = MASTER_SECONDS,
) -> Action | None:
    """The move of the seat whose `view` this is, at `level`; None when it may not act.

    Never None while the game waits for the seat. `log` is the public move log; `seconds`
    bounds the Мастер's thinking. Without `rng` the Любитель is deterministic.
    """
    legal = view["legal_actions"]
    if not legal:
        return None
    if level == NOVICE:
        return _novice(view, rng or random.Random())
    if level == AMATEUR:
        return _amateur(view, rng)
    if level == MASTER:
        return _master(view, log, rng or random.Random(), seconds)
    raise ValueError(f"unknown bot level {level!r}")


def choose_action(game: Game, seat: int, rng: random.Random | None = None) -> Action | None:
    """The Любитель's move for `seat`, from that seat's view only (tests and tools)."""
    return decide(game.view(seat), (), AMATEUR, rng)


def play_to_end(game: Game, rng: random.Random, max_steps: int = 100_000) -> Game:
    """Let Любитель bots play every seat until the game finishes; returns the same game.

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


def card_value(trump: str) -> CardValue:
    """Rank order with every trump above every plain card."""
    return _VALUES[trump].__getitem__


_VALUES = {
    trump: {
        code: RANKS.index(code[0]) + (len(RANKS) if code[1] == trump else 0) for code in CARD_CODES
    }
    for trump in SUITS
}


# --------------------------------------------------------------------- Любитель


def _amateur(view: View, rng: random.Random | None) -> Action | None:
    legal = view["legal_actions"]
    if rng is not None and rng.random() < EXPLORE:
        return rng.choice(legal)
    value = card_value(view["trump_suit"])
    if not view["table"]:
        return _lead(legal, value)
    if view["seat"] == view["defender"]:
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


def _defend(view: View, legal: list[Action], value: CardValue) -> Action:
    beats = _cheapest_beats(view, legal, value)
    transfers = sorted(
        (action for action in legal if action["type"] == "transfer"),
        key=lambda action: value(action["cards"][0]),
    )
    if transfers:
        transfer_value = value(transfers[0]["cards"][0])
        # Passing the attack on with a plain card costs nothing it would not cost to beat;
        # with a trump it only pays when beating is impossible or dearer.
        if (
            transfer_value < len(RANKS)
            or beats is None
            or sum(map(value, beats.values())) > transfer_value
        ):
            return transfers[0]
    if beats is None or _too_dear(view, beats, value):
        return TAKE
    attack, card = next(iter(beats.items()))
    return {"type": "defend", "attack": attack, "card": card}


def _too_dear(view: View, beats: dict[str, str], value: CardValue) -> bool:
    """Early on, low plain cards are not worth a high trump: taking them costs little."""
    if view["talon_size"] < SAVE_TRUMP_TALON:
        return False
    table = [pair["attack"] for pair in view["table"]]
    table += [pair["defense"] for pair in view["table"] if pair["defense"]]
    low_table = all(value(card) < LOW_PLAIN_BELOW_RANK for card in table)
    return low_table and any(
        value(card) >= len(RANKS) + SAVE_TRUMP_FROM_RANK for card in beats.values()
    )


def _cheapest_beats(view: View, legal: list[Action], value: CardValue) -> dict[str, str] | None:
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


def _throw(view: View, legal: list[Action], value: CardValue) -> Action | None:
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
    if PASS in legal:
        return PASS
    return None


# --------------------------------------------------------------------- Новичок


def _novice(view: View, rng: random.Random) -> Action | None:
    """The obvious card by rank alone (trumps spent like any card), no transfers, no plan."""
    legal = view["legal_actions"]
    if rng.random() < NOVICE_BLUNDER:
        return rng.choice(legal)
    rank = RANKS.index
    if not view["table"]:
        singles = [action for action in legal if len(action["cards"]) == 1]
        return min(singles, key=lambda action: rank(action["cards"][0][0]))
    if view["seat"] == view["defender"]:
        beats = [action for action in legal if action["type"] == "defend"]
        return min(beats, key=lambda action: rank(action["card"][0])) if beats else TAKE
    throws = [action for action in legal if action["type"] == "attack"]
    if throws:
        return min(throws, key=lambda action: rank(action["cards"][0][0]))
    return PASS if PASS in legal else None


# --------------------------------------------------------------------- Мастер


def seen_cards(view: View, log: Log) -> tuple[list[set[str]], set[str]]:
    """What the seat knows from the public log: each seat's known cards, and the discard.

    A bout that ended with a take put every card of it into the taker's hand; any other
    finished bout went to the discard. A card a seat plays leaves what is known of its hand.
    A deal that used the whole deck left the face-up trump card in the last seat's hand.
    """
    known: list[set[str]] = [set() for _ in view["hand_sizes"]]
    if view["options"]["deck"] == HAND_SIZE * len(known):
        known[-1].add(view["trump_card"])
    gone: set[str] = set()
    bout_cards: list[str] = []
    taker: int | None = None
    last_bout: int | None = None

    def close_bout() -> None:
        if taker is None:
            gone.update(bout_cards)
        else:
            known[taker].update(bout_cards)

    for event in log:
        if event["bout"] != last_bout:
            if last_bout is not None:
                close_bout()
            bout_cards, taker, last_bout = [], None, event["bout"]
        action = event["action"]
        played = action.get("cards") or ([action["card"]] if "card" in action else [])
        known[event["seat"]].difference_update(played)
        bout_cards += played
        if action["type"] == "take":
            taker = event["seat"]
    if last_bout is not None and not view["table"]:  # cards on the table: its bout goes on
        close_bout()
    mine = set(view["hand"])
    for seat, cards in enumerate(known):
        if seat == view["seat"]:
            cards.clear()
        cards -= mine
    return known, gone


def _master(view: View, log: Log, rng: random.Random, seconds: float) -> Action:
    candidates = candidate_moves(view)
    if len(candidates) == 1:
        return candidates[0]
    escapes, deals = search_escapes(
        view, log, candidates, rng, deals=MASTER_DEALS, deadline=time.perf_counter() + seconds
    )
    if not deals:  # not one full round of playouts in time: trust the heuristic
        return _amateur(view, None) or candidates[0]
    best = max(range(len(candidates)), key=lambda index: escapes[index])
    return candidates[best]


def search_escapes(
    view: View,
    log: Log,
    actions: Sequence[Action],
    rng: random.Random,
    *,
    deals: int,
    deadline: float,
) -> tuple[list[float], int]:
    """The Мастер's search: how often the seat escaped being the durak after each of `actions`.

    Each determinized deal plays every action out once (a draw counts a half), so the actions
    are compared on the same deals. Stops after `deals` deals or at `deadline` (a
    ``time.perf_counter()`` value); a deal cut short counts for none. Returns the escape counts
    and the number of whole deals played.
    """
    seat = view["seat"]
    known, gone = seen_cards(view, log)
    escapes = [0.0] * len(actions)
    done = 0
    while done < deals and time.perf_counter() < deadline:
        world = _deal_unseen(view, known, gone, rng)
        scores = []
        for action in actions:
            game = world.copy()
            game.apply(seat, action)
            scores.append(_playout(game, seat))
            if time.perf_counter() >= deadline:
                return escapes, done
        escapes = [total + score for total, score in zip(escapes, scores, strict=True)]
        done += 1
    return escapes, done


def candidate_moves(view: View) -> list[Action]:
    """The legal moves worth searching: the heuristic's, and the sensible alternatives."""
    legal = view["legal_actions"]
    value = card_value(view["trump_suit"])
    preferred = _amateur(view, None)
    picked: list[Action] = [] if preferred is None else [preferred]

    def add(action: Action) -> None:
        if action not in picked:
            picked.append(action)

    if not view["table"]:
        by_rank: dict[str, list[Action]] = {}
        for action in legal:
            by_rank.setdefault(action["cards"][0][0], []).append(action)
        for leads in by_rank.values():
            # One card of the rank (the cheapest) and the most cards of it.
            add(min(leads, key=lambda action: (len(action["cards"]), value(action["cards"][0]))))
            add(max(leads, key=lambda action: (len(action["cards"]), -value(action["cards"][0]))))
        return picked
    beaters: dict[str, list[str]] = {}
    for action in legal:
        if action["type"] == "defend":
            beaters.setdefault(action["attack"], []).append(action["card"])
        elif action["type"] != "defend":
            add(action)
    for attack, cards in beaters.items():
        plain = sorted((card for card in cards if value(card) < len(RANKS)), key=value)
        trumps = sorted((card for card in cards if value(card) >= len(RANKS)), key=value)
        for card in plain[:2] + trumps[:1]:
            add({"type": "defend", "attack": attack, "card": card})
    return picked


def _deal_unseen(view: View, known: list[set[str]], gone: set[str], rng: random.Random) -> Game:
    """One full game consistent with the view: unseen cards dealt at random."""
    seat = view["seat"]
    trump_card = view["trump_card"]
    talon_size = view["talon_size"]
    table = [pair["attack"] for pair in view["table"]]
    table += [pair["defense"] for pair in view["table"] if pair["defense"]]
    fixed = set(view["hand"]) | set(table) | gone
    if talon_size:
        fixed.add(trump_card)
    hands: list[list[str]] = []
    for other, size in enumerate(view["hand_sizes"]):
        cards = [] if other == seat else [card for card in known[other] if card not in fixed]
        cards = cards[:size]
        fixed.update(cards)
        hands.append(cards)
    hands[seat] = list(view["hand"])
    unseen = [card for card in deck_codes(view["options"]["deck"]) if card not in fixed]
    rng.shuffle(unseen)
    for other, size in enumerate(view["hand_sizes"]):
        if other != seat:
            missing = size - len(hands[other])
            hands[other] += unseen[:missing]
            del unseen[:missing]
    talon = unseen[: max(talon_size - 1, 0)] + ([trump_card] if talon_size else [])
    discard = sorted(gone) + unseen[max(talon_size - 1, 0) :]
    return Game.from_dict(
        {
            "format": 1,
            "seed": None,
            "hands": hands,
            "talon": talon,
            "trump": view["trump_suit"],
            "trump_card": trump_card,
            "discard": discard,
            "attacker": view["attacker"],
            "defender": view["defender"],
            "table": view["table"],
            "taking": view["taking"],
            "passed": view["passed"],
            "out": view["out"],
            "places": view["places"],
            "first_bout": view["first_bout"],
            "finished": False,
            "bouts": 0,
            "options": view["options"],
            "attack_limit": view["attack_limit"],
        }
    )


def _playout(game: Game, seat: int) -> float:
    """Play a dealt game out with the Любитель at every seat: 1 if `seat` is not the durak."""
    for _ in range(PLAYOUT_STEPS):
        if game.finished:
            durak = game.durak
            return 0.5 if durak is None else float(durak != seat)
        acting = game.waiting_for[0]
        game.apply(acting, _amateur(_playout_view(game, acting), None))
    return 0.5


def _playout_view(game: Game, seat: int) -> View:
    """The part of `seat`'s view the Любитель reads, built cheaply for playouts."""
    return {
        "seat": seat,
        "legal_actions": game.legal_actions(seat),
        "trump_suit": game.trump_suit,
        "table": game.table,
        "defender": game.defender,
        "talon_size": game.talon_size,
        "taking": game.taking,
    }
