"""Post-game analysis judges a seat's moves from that seat's view only."""

from __future__ import annotations

import random

from games.engine import Game
from games.engine.analysis import analyse_seat, seat_decisions
from games.engine.bots import choose_action

# Big enough that the deal cap, not the clock, ends every search: the results are repeatable.
SECONDS = 60.0


def bot_game(players: int, seed: int) -> tuple[Game, list[dict]]:
    """A game of Любитель bots from its deal: the start and the event log."""
    start = Game.new(players=players, seed=seed)
    game, rng, events = start.copy(), random.Random(seed), []
    while not game.finished:
        seat = game.waiting_for[0]
        action = choose_action(game, seat, rng)
        events.append({"seat": seat, "action": action, "bout": game.bouts})
        game.apply(seat, action)
    return start, events


def with_hidden_cards_moved(start: Game, events: list[dict], seat: int) -> Game | None:
    """The same game with the durak's never-played cards moved between his first hand and
    the talon: every move stays legal and `seat` sees exactly the same, but the hidden cards
    and the talon order differ. None when the game offers no such cards."""
    final = start.copy()
    for event in events:
        final.apply(event["seat"], event["action"])
    durak = final.durak
    if durak is None or durak == seat:
        return None
    played = {
        card
        for event in events
        for card in event["action"].get("cards", []) + [event["action"].get("card")]
    }
    state = start.to_dict()
    hidden = set(final.hand(durak)) - played - {state["trump_card"]}
    places = [("hand", code) for code in state["hands"][durak] if code in hidden]
    places += [("talon", code) for code in state["talon"][:-1] if code in hidden]
    if len({where for where, _ in places}) < 2:
        return None
    cards = [code for _, code in places]
    moved = cards[1:] + cards[:1]
    swap = dict(zip(cards, moved, strict=True))
    state["hands"][durak] = [swap.get(code, code) for code in state["hands"][durak]]
    state["talon"] = [swap.get(code, code) for code in state["talon"]]
    return Game.from_dict(state)


def test_the_analysis_reads_nothing_outside_the_seats_view():
    checked = 0
    for seed in range(30):
        start, events = bot_game(3, seed)
        other = with_hidden_cards_moved(start, events, seat=0)
        if other is None:
            continue
        assert other.to_dict() != start.to_dict()
        one, two = start.copy(), other.copy()
        for event in events:  # the premise: the same moves, seen the same by seat 0
            assert one.view(0) == two.view(0)
            one.apply(event["seat"], event["action"])
            two.apply(event["seat"], event["action"])
        first = analyse_seat(start, events, 0, deals=3, seconds=SECONDS, seed=seed)
        second = analyse_seat(other, events, 0, deals=3, seconds=SECONDS, seed=seed)
        assert first and first == second
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def test_every_choice_of_the_seat_is_judged_against_the_best_move():
    start, events = bot_game(2, 5)
    seen = []
    decisions = analyse_seat(
        start,
        events,
        1,
        deals=4,
        seconds=SECONDS,
        seed=5,
        progress=lambda done, total: seen.append((done, total)),
    )
    choices = list(seat_decisions(start, events, 1))
    assert [decision.version for decision in decisions] == [version for version, *_ in choices]
    assert seen == [(done, len(choices)) for done in range(1, len(choices) + 1)]
    for decision, (version, view, _log, played) in zip(decisions, choices, strict=True):
        assert events[version]["seat"] == 1 and decision.played == played
        assert decision.view == view and len(view["legal_actions"]) > 1
        assert 0 <= decision.durak_best <= decision.durak_played <= 1
        assert decision.best in view["legal_actions"] or decision.best == played
    forced = [event for event in events if event["seat"] == 1]
    assert len(forced) > len(decisions) > 0  # single-move turns are no decisions


def test_an_empty_budget_judges_nothing():
    start, events = bot_game(2, 6)
    assert analyse_seat(start, events, 0, deals=0, seconds=SECONDS, seed=1) == []
