"""The heuristic bot: legal, sensible, and its games finish."""

from __future__ import annotations

import random

import pytest

from games.engine import Game
from games.engine.bots import choose_action, play_to_end


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
