"""The heuristic bot: legal, sensible, and its games finish."""

from __future__ import annotations

import inspect
import json
import random

import pytest

from games.engine import Game
from games.engine.arena import wilson
from games.engine.bots import (
    AMATEUR,
    LEVELS,
    MASTER,
    NOVICE,
    _deal_unseen,
    choose_action,
    decide,
    play_to_end,
    seen_cards,
)


def position(*hands: str, talon: str = "", trump: str = "H", first_bout: bool = False) -> Game:
    return Game.from_position(
        {
            "hands": [hand.split() for hand in hands],
            "talon": talon.split(),
            "trump": trump,
            "attacker": 0,
            "first_bout": first_bout,
        }
    )


def led(game: Game, *cards: str) -> Game:
    game.apply(0, {"type": "attack", "cards": list(cards)})
    return game


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_bot_only_returns_legal_actions_and_always_acts_when_waited_for(players):
    rng = random.Random(players)
    for seed in range(15):
        game = Game.new(players=players, seed=seed)
        while not game.finished:
            for seat in range(players):
                action = choose_action(game, seat)
                legal = game.legal_actions(seat)
                assert action is None or action in legal
                if seat in game.waiting_for:
                    assert action is not None
            acting = rng.choice(game.waiting_for)
            game.apply(acting, choose_action(game, acting, rng))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_bot_games_finish_with_every_seat_placed(players):
    rng = random.Random(7)
    for seed in range(20):
        game = play_to_end(Game.new(players=players, seed=seed), rng)
        assert game.finished
        assert sorted(seat for group in game.places for seat in group) == list(range(players))


def test_bot_beats_a_random_player_most_of_the_time():
    rng = random.Random(3)
    bot_lost = 0
    for seed in range(100):
        game = Game.new(players=2, seed=seed)
        while not game.finished:
            seat = game.waiting_for[0]
            bot = seat == 0
            game.apply(
                seat, choose_action(game, 0, rng) if bot else rng.choice(game.legal_actions(1))
            )
        bot_lost += game.durak == 0
    assert bot_lost < 25


def test_bot_beats_with_the_cheapest_sufficient_plain_card():
    game = led(position("6S 6D", "AS 9S 7S KH", talon="TC JH"), "6S")
    assert choose_action(game, 1) == {"type": "defend", "attack": "6S", "card": "7S"}


def test_bot_saves_trumps_when_a_plain_card_beats():
    game = led(position("6S 6D", "6H AS", talon="TC JH"), "6S")
    assert choose_action(game, 1) == {"type": "defend", "attack": "6S", "card": "AS"}


def test_bot_takes_when_it_cannot_beat():
    game = led(position("AS 6D", "KS 7C 9D", talon="TC JH"), "AS")
    assert choose_action(game, 1) == {"type": "take"}


def test_bot_transfers_with_a_plain_card():
    game = led(position("6S 9D", "6C AH KS", "7D 8D 9C", talon="TC JH"), "6S")
    assert choose_action(game, 1) == {"type": "transfer", "cards": ["6C"]}


def test_bot_leads_its_lowest_plain_rank_with_every_card_of_it():
    game = position("6H 7S 7C KD", "8S 8C 8D", talon="TC JH")
    assert choose_action(game, 0) == {"type": "attack", "cards": ["7S", "7C"]}


def test_bot_throws_a_low_plain_card_and_keeps_high_ones_while_the_talon_lasts():
    game = led(position("6S 6D AS 8C", "7S 9D AD KH", "8D", talon="TC JH"), "6S")
    game.apply(1, {"type": "defend", "attack": "6S", "card": "7S"})
    assert choose_action(game, 0) == {"type": "attack", "cards": ["6D"]}
    game.apply(0, {"type": "attack", "cards": ["6D"]})
    game.apply(1, {"type": "defend", "attack": "6D", "card": "AD"})
    assert choose_action(game, 0) == {"type": "pass"}


# ------------------------------------------------------------------ three levels, fair information


def logged_game(
    players: int, seed: int, moves: int, options: dict | None = None
) -> tuple[Game, list[dict]]:
    """A game `moves` moves in, played by the Любитель, with its public move log."""
    game = Game.new(players=players, seed=seed, options=options)
    log: list[dict] = []
    for _ in range(moves):
        seat = game.waiting_for[0]
        action = choose_action(game, seat)
        log.append({"bout": game.bouts, "seat": seat, "action": action})
        game.apply(seat, action)
    return game, log


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_level_plays_legal_moves_to_the_end_from_the_view_and_log_alone(level, players):
    rng = random.Random(players)
    for seed in range(3):
        game = Game.new(players=players, seed=seed)
        log: list[dict] = []
        while not game.finished:
            seat = rng.choice(game.waiting_for)
            # A JSON round trip: the bot holds no reference to the game, only plain data.
            view = json.loads(json.dumps(game.view(seat)))
            action = decide(view, json.loads(json.dumps(log)), level, rng, seconds=0.01)
            assert action in game.legal_actions(seat)
            log.append({"bout": game.bouts, "seat": seat, "action": action})
            game.apply(seat, action)
        assert sorted(seat for group in game.places for seat in group) == list(range(players))


EVERY_OPTION = [
    {"transfer": transfer, "deck": deck, "throw_in": throw_in, "limit": limit}
    for transfer in (True, False)
    for deck in (24, 36, 52)
    for throw_in in ("all", "neighbours")
    for limit in ("zavala", "classic")
]
# The Мастер thinks longest: each deck and each other option at least once, not every mix.
MASTER_TABLES = [
    (4, {"transfer": True, "deck": 24, "throw_in": "neighbours", "limit": "classic"}),
    (3, {"transfer": False, "deck": 24, "throw_in": "all", "limit": "zavala"}),
    (6, {"transfer": True, "deck": 52, "throw_in": "all", "limit": "classic"}),
    (2, {"transfer": False, "deck": 52, "throw_in": "neighbours", "limit": "zavala"}),
    (5, {"transfer": False, "deck": 36, "throw_in": "neighbours", "limit": "classic"}),
]


def play_from_views(level: str, players: int, options: dict, seed: int) -> Game:
    """A game to the end with `level` at every seat, each move from a JSON copy of the view."""
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed, options=options)
    log: list[dict] = []
    while not game.finished:
        seat = rng.choice(game.waiting_for)
        view = json.loads(json.dumps(game.view(seat)))
        action = decide(view, log, level, rng, seconds=0.01)
        assert action in game.legal_actions(seat)
        log.append({"bout": game.bouts, "seat": seat, "action": action})
        game.apply(seat, action)
    assert sorted(seat for group in game.places for seat in group) == list(range(players))
    return game


@pytest.mark.parametrize("level", [NOVICE, AMATEUR])
def test_the_novice_and_amateur_play_every_table_legally_to_the_end(level):
    for index, options in enumerate(EVERY_OPTION):
        play_from_views(level, 2 + index % (3 if options["deck"] == 24 else 5), options, index)


@pytest.mark.parametrize(("players", "options"), MASTER_TABLES)
def test_the_master_plays_tables_of_every_option_legally_to_the_end(players, options):
    play_from_views(MASTER, players, options, players)


def every_card(state: dict) -> list[str]:
    cards = [card for held in state["hands"] for card in held] + state["talon"]
    cards += [card for pair in state["table"] for card in pair.values() if card]
    return cards + state["discard"]


@pytest.mark.parametrize("deck", [24, 52])
def test_the_master_deals_the_unseen_cards_of_the_tables_deck(deck):
    options = {"deck": deck, "limit": "classic"}
    game, log = logged_game(3, seed=5, moves=5, options=options)
    view = game.view(0)
    assert view["waiting_for"] == [view["defender"]]  # mid-bout: the world keeps the bout on
    known, gone = seen_cards(view, log)
    world = _deal_unseen(view, known, gone, random.Random(2))
    state = world.to_dict()
    assert sorted(every_card(state)) == sorted(every_card(game.to_dict()))
    assert len(set(every_card(state))) == deck
    assert state["options"] == game.to_dict()["options"]
    assert world.view(0)["attack_limit"] == view["attack_limit"]


@pytest.mark.parametrize(("players", "deck"), [(4, 24), (6, 36)])
def test_after_a_deal_of_the_whole_deck_the_last_seat_is_known_to_hold_the_trump_card(
    players, deck
):
    game = Game.new(players=players, seed=8, options={"deck": deck})
    view = game.view(0)
    known, _gone = seen_cards(view, [])
    assert known[players - 1] == {view["trump_card"]}
    holder = game.view(players - 1)
    assert seen_cards(holder, [])[0][players - 1] == set()  # his own hand is no guess


def test_the_decision_function_takes_only_the_view_and_the_log():
    parameters = inspect.signature(decide).parameters
    assert list(parameters) == ["view", "log", "level", "rng", "seconds"]
    assert all(
        parameter.annotation in ("View", "Log", "str", "random.Random | None", "float")
        for parameter in parameters.values()
    )


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_given_a_doctored_view_acts_on_the_doctored_view(level):
    game = led(position("6S 6D AS", "7S KD QC", "9C 9D", talon="TC JH 8H"), "6S")
    view = game.view(1)
    # The real hand can beat 6S with 7S; the doctored one can only take or transfer.
    view["hand"] = ["6C", "8D", "JC"]
    view["legal_actions"] = [
        {"type": "transfer", "cards": ["6C"]},
        {"type": "take"},
    ]
    for seed in range(5):
        assert decide(view, [], level, random.Random(seed), seconds=0.05) in view["legal_actions"]


def test_the_master_deals_unseen_cards_around_what_its_seat_knows():
    # Seat 1 takes 6S and 6C from seat 0; seat 0 then knows both are in seat 1's hand.
    game = position("6S 6C 9D", "8C TD KD JS", talon="AH QD QS 9S 8S 6H")
    log = []
    for seat, action in [
        (0, {"type": "attack", "cards": ["6S", "6C"]}),
        (1, {"type": "take"}),  # seat 0 has no other six: the bout ends at once
    ]:
        log.append({"bout": game.bouts, "seat": seat, "action": action})
        game.apply(seat, action)
    view = game.view(0)
    assert view["table"] == [] and view["waiting_for"] == [0]
    known, gone = seen_cards(view, log)
    assert known[1] == {"6S", "6C"} and gone == set()
    rng = random.Random(1)
    for _ in range(20):
        world = _deal_unseen(view, known, gone, rng)
        assert world.hand(0) == view["hand"]
        assert {"6S", "6C"} <= set(world.hand(1))
        assert [len(world.hand(seat)) for seat in range(2)] == view["hand_sizes"]
        assert world.view(0)["trump_card"] == view["trump_card"]
        assert world.talon_size == view["talon_size"]


def test_cards_played_after_a_take_leave_what_is_known_and_beaten_cards_are_gone():
    game, log = logged_game(2, seed=11, moves=40)
    view = game.view(0)
    known, gone = seen_cards(view, log)
    assert not known[0]
    assert len(gone) == view["discard_size"]
    assert not known[1] & set(view["hand"])
    assert all(len(cards) <= size for cards, size in zip(known, view["hand_sizes"], strict=True))


def test_a_master_out_of_time_falls_back_on_the_amateurs_move():
    game, log = logged_game(4, seed=3, moves=12)
    seat = game.waiting_for[0]
    view = game.view(seat)
    assert decide(view, log, MASTER, random.Random(1), seconds=0) == choose_action(game, seat)


def test_the_master_plans_the_endgame_the_amateur_loses():
    # Leading 6S lets a defender holding a beater go out first; leading the trump ace makes
    # him take it, and then any answer to 6S leaves the master out first.
    game = position("6S AH", "7S")
    view = game.view(0)
    assert choose_action(game, 0) == {"type": "attack", "cards": ["6S"]}
    assert decide(view, [], MASTER, random.Random(1), seconds=5) == {
        "type": "attack",
        "cards": ["AH"],
    }


def test_wilson_interval_brackets_the_observed_share():
    low, high = wilson(12, 100)
    assert low < 0.12 < high
    assert (round(low, 3), round(high, 3)) == (0.070, 0.198)
