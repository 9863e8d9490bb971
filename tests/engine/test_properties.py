"""Properties over random legal play to the end, for 2 to 6 players at tables of every option."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Game, IllegalAction

ALL_CODES = [rank + suit for rank in "23456789TJQKA" for suit in "SCDH"]
DECK_CODES = {size: ALL_CODES[52 - size :] for size in (24, 36, 52)}
CODE_PATTERN = re.compile(r"\b[23456789TJQKA][SCDH]\b")
MAX_STEPS = 5000
SETTINGS = settings(max_examples=120, deadline=None)
EVERY_OPTION = [
    {"transfer": transfer, "deck": deck, "throw_in": throw_in, "limit": limit}
    for transfer in (True, False)
    for deck in (24, 36, 52)
    for throw_in in ("all", "neighbours")
    for limit in ("zavala", "classic")
]
DEFAULTS = {"transfer": True, "deck": 36, "throw_in": "all", "limit": "zavala"}


@st.composite
def games(draw: st.DrawFn) -> tuple[int, int, int, dict]:
    """(players, deal seed, seed of the random player, options): a drawn seed keeps
    hypothesis' input small however long the game runs. The default table comes a quarter of
    the time, each other table as often as one another."""
    options = draw(st.sampled_from(EVERY_OPTION + [DEFAULTS] * 7))
    players = draw(st.integers(2, 4 if options["deck"] == 24 else 6))
    return players, draw(st.integers(0, 2**63)), draw(st.integers(0, 2**32)), options


def random_play(players: int, seed: int, player_seed: int, options: dict) -> Iterator[Game]:
    """Yield the game before every move of a random legal playout, then the finished game."""
    rng = random.Random(player_seed)
    game = Game.new(players=players, seed=seed, options=options)
    for _ in range(MAX_STEPS):
        yield game
        moves = [(seat, action) for seat in range(players) for action in game.legal_actions(seat)]
        if game.finished:
            assert moves == []
            return
        seat, action = rng.choice(moves)
        game.apply(seat, action)
    pytest.fail("the game did not finish")


def cards_by_place(state: dict) -> Counter:
    places = [card for held in state["hands"] for card in held] + state["talon"]
    places += [pair["attack"] for pair in state["table"]]
    places += [pair["defense"] for pair in state["table"] if pair["defense"]]
    return Counter(places + state["discard"])


@pytest.mark.slow
@SETTINGS
@given(games())
def test_cards_are_conserved_and_every_game_finishes_with_every_seat_placed(case):
    players, options = case[0], case[3]
    for game in random_play(*case):
        state = game.to_dict()
        counts = cards_by_place(state)
        assert sorted(counts) == sorted(DECK_CODES[options["deck"]])
        assert set(counts.values()) == {1}
        if not state["taking"] and not game.finished:
            unbeaten = sum(pair["defense"] is None for pair in state["table"])
            assert unbeaten <= len(state["hands"][state["defender"]])
        for seat in game.waiting_for:
            assert game.legal_actions(seat), "the game waits for a seat that cannot act"
    assert game.finished
    seats = [seat for group in game.places for seat in group]
    assert sorted(seats) == list(range(players))
    if game.durak is not None:
        assert game.places[-1] == [game.durak]


@pytest.mark.slow
@SETTINGS
@given(games())
def test_state_round_trips_through_json_at_every_step(case):
    for game in random_play(*case):
        state = game.to_dict()
        restored = Game.from_dict(json.loads(json.dumps(state)))
        assert restored.to_dict() == state
        assert restored.waiting_for == game.waiting_for
        assert restored.deadline_kind == game.deadline_kind


@pytest.mark.slow
@SETTINGS
@given(games())
def test_every_listed_action_is_accepted(case):
    players = case[0]
    for game in random_play(*case):
        for seat in range(players):
            for action in game.legal_actions(seat):
                game.copy().apply(seat, action)


def random_action(rng: random.Random) -> object:
    kind = rng.choice(["attack", "defend", "transfer", "take", "pass", "junk"])
    cards = rng.sample(ALL_CODES, rng.choice([1, 1, 1, 2, 3]))
    if kind in ("attack", "transfer"):
        return {"type": kind, "cards": cards}
    if kind == "defend":
        return {"type": kind, "attack": cards[0], "card": rng.choice(ALL_CODES)}
    if kind in ("take", "pass"):
        return {"type": kind}
    return rng.choice(
        [None, [], "pass", {"type": "attack", "cards": [cards[0], cards[0]]}, {"cards": cards}]
    )


@pytest.mark.slow
@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_random_actions_are_accepted_only_when_legal_and_otherwise_change_nothing(case, junk_seed):
    players = case[0]
    junk = random.Random(junk_seed)
    for game in random_play(*case):
        for _ in range(8):
            seat = junk.choice([*range(players), -1, players, None, True])
            action = random_action(junk)
            legal = game.legal_actions(seat)
            before = game.to_dict()
            trial = game.copy()
            try:
                trial.apply(seat, action)
            except IllegalAction:
                assert trial.to_dict() == before
                assert action not in legal
                continue
            cards = action.get("cards", [])
            singles = [{"type": action["type"], "cards": [card]} for card in cards]
            assert action in legal or all(single in legal for single in singles)
        assert game.to_dict() == before


@pytest.mark.slow
@SETTINGS
@given(games())
def test_views_never_show_another_seats_cards_or_the_talon(case):
    players = case[0]
    played: set[str] = set()  # cards that left a hand: only a move does that, face up
    held: set[str] = set()
    for game in random_play(*case):
        state = game.to_dict()
        public = {pair["attack"] for pair in state["table"]}
        public |= {pair["defense"] for pair in state["table"] if pair["defense"]}
        now_held = {card for hand in state["hands"] for card in hand}
        played |= held - now_held
        held = now_held
        # The discard is public only because each of its cards was played face up first.
        assert set(state["discard"]) <= played
        public |= set(state["discard"])
        public.add(state["trump_card"])
        for seat in [None, *range(players)]:
            text = json.dumps(game.view(seat))
            own = set() if seat is None else set(state["hands"][seat])
            assert set(CODE_PATTERN.findall(text)) <= public | own


@pytest.mark.parametrize(
    "options",
    EVERY_OPTION,
    ids=lambda options: "-".join(str(value) for value in options.values()),
)
def test_every_table_plays_to_the_end_by_its_listed_moves_and_replays_the_same(options):
    most = 4 if options["deck"] == 24 else 6
    for seed in range(3):
        seed += 3 * EVERY_OPTION.index(options)
        play_listed_moves_and_replay(2 + seed % (most - 1), seed, options)


def play_listed_moves_and_replay(players: int, seed: int, options: dict) -> None:
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed, options=options)
    moves = []
    while not game.finished:
        state = game.to_dict()
        counts = cards_by_place(state)
        assert sorted(counts) == sorted(DECK_CODES[options["deck"]])
        assert set(counts.values()) == {1}
        assert Game.from_dict(json.loads(json.dumps(state))).to_dict() == state
        listed = [(seat, action) for seat in range(players) for action in game.legal_actions(seat)]
        for seat, action in listed:
            game.copy().apply(seat, action)
        assert all(game.legal_actions(seat) for seat in game.waiting_for)
        move = rng.choice(listed)
        game.apply(*move)
        moves.append(move)
        assert len(moves) < MAX_STEPS
    replay = Game.new(players=players, seed=seed, options=options)
    assert replay.to_dict()["options"] == options
    for move in moves:
        replay.apply(*move)
    assert replay.to_dict() == game.to_dict()
