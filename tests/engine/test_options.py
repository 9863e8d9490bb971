"""The table options of RULES.md §7, one by one and where they meet, on exact positions."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from games.engine import OPTIONS, Game, table_options
from tests.engine.test_rules import assert_rejected, attack, defend, hand, transfer

TAKE = {"type": "take"}
PASS = {"type": "pass"}
ALL_RANKS = "23456789TJQKA"


def position(*hands: str, talon: str = "", trump: str = "H", attacker: int = 0, **extra) -> Game:
    """A game from space-separated hands; `options` and other keys go to the position as given."""
    return Game.from_position(
        {
            "hands": [hand.split() for hand in hands],
            "talon": talon.split(),
            "trump": trump,
            "attacker": attacker,
            "first_bout": extra.pop("first_bout", False),
            **extra,
        }
    )


def all_cards(game: Game) -> list[str]:
    """Every card of the game wherever it lies: hands, talon, table and discard."""
    state = game.to_dict()
    cards = [card for held in state["hands"] for card in held] + state["talon"]
    cards += [card for pair in state["table"] for card in pair.values() if card]
    return cards + state["discard"]


# ---------------------------------------------------------------- the options themselves


def test_defaults_are_the_game_of_the_first_six_sections():
    assert OPTIONS == {"transfer": True, "deck": 36, "throw_in": "all", "limit": "zavala"}
    assert table_options(None) == table_options({}) == OPTIONS


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_omitted_and_default_options_deal_the_same_cards(players):
    for seed in range(10):
        plain = Game.new(players=players, seed=seed).to_dict()
        assert Game.new(players=players, seed=seed, options={}).to_dict() == plain
        assert Game.new(players=players, seed=seed, options=dict(OPTIONS)).to_dict() == plain
        assert plain["options"] == OPTIONS


def test_missing_keys_take_the_defaults_in_the_state_and_every_view():
    game = Game.new(players=3, seed=4, options={"deck": 24, "limit": "classic"})
    full = {"transfer": True, "deck": 24, "throw_in": "all", "limit": "classic"}
    assert game.to_dict()["options"] == full
    assert all(game.view(seat)["options"] == full for seat in [None, 0, 1, 2])
    restored = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert restored.to_dict() == game.to_dict()


def test_a_state_stored_before_options_existed_is_a_default_game():
    state = Game.new(players=4, seed=9).to_dict()
    del state["options"], state["attack_limit"]
    assert Game.from_dict(state).to_dict() == Game.new(players=4, seed=9).to_dict()


@pytest.mark.parametrize(
    "options",
    [
        {"transfer": 1},
        {"transfer": "no"},
        {"deck": 32},
        {"deck": 36.0},
        {"deck": "24"},
        {"throw_in": "left"},
        {"limit": "6"},
        {"speed": "fast"},
        ["deck", 24],
    ],
)
def test_a_bad_option_is_refused(options):
    with pytest.raises(ValueError):
        Game.new(players=2, seed=1, options=options)
    with pytest.raises(ValueError):
        position("7S", "8S", options=options)


@pytest.mark.parametrize("players", [5, 6])
def test_five_or_six_players_cannot_share_twenty_four_cards(players):
    with pytest.raises(ValueError):
        Game.new(players=players, seed=1, options={"deck": 24})
    with pytest.raises(ValueError):
        position(*["9S", "TS", "JS", "QS", "KS", "AS"][:players], options={"deck": 24})


@pytest.mark.parametrize(
    ("deck", "hands", "talon"),
    [
        (24, ["8S", "9S"], ""),
        (24, ["9S", "TS"], "8H"),
        (36, ["5S", "9S"], ""),
        (36, ["9S", "TS"], "2H"),
    ],
)
def test_a_position_holding_a_card_outside_the_deck_is_refused(deck, hands, talon):
    with pytest.raises(ValueError):
        position(*hands, talon=talon, options={"deck": deck})


def test_a_trump_card_outside_the_deck_is_refused():
    with pytest.raises(ValueError):
        position("9S", "TS", trump_card="2H", options={"deck": 24})


# ---------------------------------------------------------------- deck


@pytest.mark.parametrize(("size", "lowest"), [(24, "9"), (36, "6"), (52, "2")])
def test_each_deck_holds_its_ranks_in_every_suit(size, lowest):
    game = Game.new(players=2, seed=5, options={"deck": size})
    ranks = ALL_RANKS[ALL_RANKS.index(lowest) :]
    assert sorted(all_cards(game)) == sorted(rank + suit for rank in ranks for suit in "SCDH")
    assert game.view(None)["talon_size"] == size - 12


@pytest.mark.parametrize(("size", "players"), [(24, 4), (36, 6)])
def test_a_deal_of_the_whole_deck_shows_the_last_card_dealt_as_trump(size, players):
    for seed in range(10):
        game = Game.new(players=players, seed=seed, options={"deck": size})
        state = game.to_dict()
        assert state["talon"] == []
        assert state["trump_card"] in state["hands"][players - 1]
        assert state["trump"] == state["trump_card"][1]
        assert game.view(0)["trump_card"] == state["trump_card"]
        assert all(len(held) == 6 for held in state["hands"])


@pytest.mark.parametrize(("size", "players"), [(24, 3), (52, 6), (52, 2)])
def test_a_deal_that_leaves_cards_turns_the_next_one_up_under_the_talon(size, players):
    for seed in range(10):
        state = Game.new(players=players, seed=seed, options={"deck": size}).to_dict()
        assert len(state["talon"]) == size - 6 * players
        assert state["talon"][-1] == state["trump_card"]
        assert all(len(held) == 6 for held in state["hands"])


@pytest.mark.parametrize(("size", "players"), [(24, 2), (24, 4), (52, 2), (52, 6)])
def test_the_lowest_trump_of_the_chosen_deck_leads(size, players):
    for seed in range(20):
        game = Game.new(players=players, seed=seed, options={"deck": size})
        state = game.to_dict()
        trumps = [
            (ALL_RANKS.index(card[0]), seat)
            for seat, held in enumerate(state["hands"])
            for card in held
            if card[1] == state["trump"]
        ]
        assert game.attacker == min(trumps)[1]


@pytest.mark.parametrize(("low", "high"), list(itertools.pairwise("23456")))
def test_the_new_ranks_of_fifty_two_cards_rank_below_six_in_order(low, high):
    game = position(f"{low}S AD", f"{high}S KD", options={"deck": 52})
    game.apply(0, attack(f"{low}S"))
    assert defend(f"{low}S", f"{high}S") in game.legal_actions(1)
    higher_led = position(f"{high}S AD", f"{low}S KD", options={"deck": 52})
    higher_led.apply(0, attack(f"{high}S"))
    assert_rejected(higher_led, 1, defend(f"{high}S", f"{low}S"), "cannot_beat")


def test_a_two_of_trumps_beats_a_plain_ace():
    game = position("AS KD", "2H QD", trump="H", options={"deck": 52})
    game.apply(0, attack("AS"))
    game.apply(1, defend("AS", "2H"))
    assert hand(game, 1) == {"QD"}


def test_fifty_two_cards_at_six_seats_play_to_the_end_with_every_card_kept():
    rng = random.Random(3)
    game = Game.new(players=6, seed=52, options={"deck": 52})
    assert game.talon_size == 16
    while not game.finished:
        seat = rng.choice(game.waiting_for)
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        assert len(set(all_cards(game))) == len(all_cards(game)) == 52
    assert sorted(seat for group in game.places for seat in group) == list(range(6))


# ---------------------------------------------------------------- transfer off


def test_without_transfers_the_defender_only_beats_or_takes():
    game = position("7S 9D", "7C 8S KD", "8C QD", options={"transfer": False})
    game.apply(0, attack("7S"))
    legal = game.legal_actions(1)
    assert {action["type"] for action in legal} == {"defend", "take"}
    assert_rejected(game, 1, transfer("7C"), "transfer_not_allowed")
    game.apply(1, defend("7S", "8S"))
    assert game.table == [{"attack": "7S", "defense": "8S"}]


def test_with_transfers_the_same_position_allows_one():
    game = position("7S 9D", "7C 8S KD", "8C QD")
    game.apply(0, attack("7S"))
    assert transfer("7C") in game.legal_actions(1)


# ---------------------------------------------------------------- neighbours


def test_only_the_defenders_neighbours_throw_in_pass_or_are_waited_for():
    hands = ("7S 8D", "9S TC JC", "7C KD", "7D QD")
    game = position(*hands, options={"throw_in": "neighbours"})
    game.apply(0, attack("7S"))
    assert game.legal_actions(3) == []
    assert_rejected(game, 3, attack("7D"), "not_your_turn")
    assert attack("7C") in game.legal_actions(2)
    game.apply(1, defend("7S", "9S"))
    assert game.waiting_for == [2]  # seat 3 holds a seven too but sits across the table
    assert_rejected(game, 3, PASS, "pass_not_allowed")
    everyone = position(*hands)
    everyone.apply(0, attack("7S"))
    everyone.apply(1, defend("7S", "9S"))
    assert everyone.waiting_for == [2, 3]


def test_after_a_transfer_the_neighbours_are_those_of_the_new_defender():
    game = position(
        "7S 7D AS", "7H 7C KS", "8S 9H TS JS", "8C QC", options={"throw_in": "neighbours"}
    )
    game.apply(0, attack("7S"))
    game.apply(1, transfer("7H"))
    assert game.defender == 2
    assert game.legal_actions(0) == []  # the leader is no neighbour of the new defender
    assert_rejected(game, 0, attack("7D"), "not_your_turn")
    assert attack("7C") in game.legal_actions(1)
    game.apply(2, defend("7S", "8S"))
    game.apply(2, defend("7H", "9H"))
    assert game.waiting_for == [1, 3]
    assert game.legal_actions(0) == []


def test_with_three_players_still_in_every_thrower_is_a_neighbour():
    game = position("7S 7D AS", "7H KS", "8S 9H TS", options={"throw_in": "neighbours"})
    game.apply(0, attack("7S"))
    game.apply(1, transfer("7H"))
    assert game.defender == 2
    assert attack("7D") in game.legal_actions(0)
    game.apply(2, defend("7S", "8S"))
    game.apply(2, defend("7H", "9H"))
    assert game.waiting_for == [0]  # seat 1 holds nothing of the table's ranks
    assert PASS in game.legal_actions(0)


def test_a_neighbour_who_played_his_last_card_stays_the_neighbour_until_the_drawing():
    game = position(
        "7S 8D", "9S TC JC QC", "7C", "7D QD", "7H KD", options={"throw_in": "neighbours"}
    )
    game.apply(0, attack("7S"))
    game.apply(2, attack("7C"))  # seat 2's last card
    assert game.legal_actions(3) == []  # seat 3 does not move up while seat 2 is still in
    assert game.legal_actions(4) == []
    game.apply(1, defend("7S", "9S"))
    game.apply(1, defend("7C", "TC"))
    assert game.bouts == 1  # nobody left to wait for: seat 0 holds no 7, 9 or 10
    assert game.places == [[2]]
    assert (game.attacker, game.defender) == (1, 3)
    game.apply(1, attack("JC"))
    assert game.legal_actions(4) == []  # 3's neighbours are now 1 and 4; 4 holds no jack
    assert attack("7H") not in game.legal_actions(4)


def test_players_out_are_skipped_when_finding_the_neighbours():
    game = position(
        "7S 8D", "9S TC JC", "", "7D QD", "7H KD", places=[[2]], options={"throw_in": "neighbours"}
    )
    game.apply(0, attack("7S"))
    assert attack("7D") in game.legal_actions(3)  # left of the defender, past the seat out
    assert game.legal_actions(4) == []


# ---------------------------------------------------------------- classic limits


def test_classic_first_bout_holds_at_most_five_attack_cards_take_or_not():
    hands = ("7S 7C 7D 7H TC TD", "8D TS JS QS KS AD")
    game = position(*hands, first_bout=True, options={"limit": "classic"})
    assert game.view(0)["attack_limit"] == 5
    game.apply(0, attack("7S"))
    game.apply(1, defend("7S", "TS"))
    game.apply(0, attack("7C"))
    game.apply(1, TAKE)
    game.apply(0, attack("7D", "7H"))
    assert_rejected(game, 0, attack("TC", "TD"), "throw_limit")
    assert attack("TC") in game.legal_actions(0)
    game.apply(0, attack("TC"))
    assert game.bouts == 1  # the fifth card: nobody may throw more, so the bout is over
    assert {"7S", "TS", "7C", "7D", "7H", "TC"} <= hand(game, 1)
    assert hand(game, 0) == {"TD"}


def test_do_zavala_lets_the_same_take_grow_past_five():
    game = position("7S 7C 7D 7H TC TD", "8D TS JS QS KS AD", first_bout=True)
    assert game.view(0)["attack_limit"] is None
    game.apply(0, attack("7S"))
    game.apply(1, defend("7S", "TS"))
    game.apply(0, attack("7C"))
    game.apply(1, TAKE)
    game.apply(0, attack("7D", "7H", "TC", "TD"))
    assert game.bouts == 1 and len(hand(game, 1)) == 12


def test_classic_later_bouts_hold_at_most_six_attack_cards_even_after_take():
    hands = ("7S 7C 7D 7H 8S 8C 8D", "8H 9S 9C 9D TS TC JS JC")
    game = position(*hands, options={"limit": "classic"})
    assert game.view(1)["attack_limit"] == 6
    game.apply(0, attack("7S", "7C", "7D", "7H"))
    game.apply(1, defend("7S", "8H"))
    game.apply(1, TAKE)
    assert_rejected(game, 0, attack("8S", "8C", "8D"), "throw_limit")
    game.apply(0, attack("8S", "8C"))
    assert game.bouts == 1
    assert hand(game, 0) == {"8D"}


def test_classic_counts_the_defenders_hand_when_the_bout_began():
    game = position("7S 7C 7D 7H AS", "8S 9S TS", talon="6D KH", options={"limit": "classic"})
    assert game.view(None)["attack_limit"] == 3
    game.apply(0, attack("7S"))
    game.apply(1, TAKE)
    assert_rejected(game, 0, attack("7C", "7D", "7H"), "throw_limit")
    game.apply(0, attack("7C", "7D"))
    assert game.bouts == 1
    assert "7H" in hand(game, 0)
    zavala = position("7S 7C 7D 7H AS", "8S 9S TS", talon="6D KH")
    zavala.apply(0, attack("7S"))
    zavala.apply(1, TAKE)
    zavala.apply(0, attack("7C", "7D", "7H"))
    assert zavala.bouts == 1


def test_classic_after_a_transfer_counts_the_new_defenders_hand_at_the_transfer():
    game = position("7S 8S 9S TS", "7C 7D 7H KD", options={"limit": "classic"})
    game.apply(0, attack("7S"))  # the leader keeps 3 cards
    game.apply(1, transfer("7C"))  # with two players the cards go back to the leader
    assert game.defender == 0
    assert game.view(0)["attack_limit"] == 3
    game.apply(1, attack("7D"))
    assert game.legal_actions(1) == []
    assert_rejected(game, 1, attack("7H"), "throw_limit")
    game.apply(0, TAKE)
    assert game.bouts == 1  # the limit is reached: nobody is waited for
    assert hand(game, 0) == {"7S", "7C", "7D", "8S", "9S", "TS"}
    zavala = position("7S 8S 9S TS", "7C 7D 7H KD")
    zavala.apply(0, attack("7S"))
    zavala.apply(1, transfer("7C"))
    zavala.apply(1, attack("7D"))
    zavala.apply(0, TAKE)
    assert zavala.waiting_for == [1]
    zavala.apply(1, attack("7H"))
    assert zavala.bouts == 1


def test_classic_limit_is_set_again_for_each_new_bout():
    game = position("7S 8D", "9S TC JC QC KC AC 6C", talon="6D 6H", options={"limit": "classic"})
    game.apply(0, attack("7S"))
    game.apply(1, TAKE)
    assert game.bouts == 1
    # The taker misses his turn: seat 0 leads again, against 8 cards, so six is the limit.
    assert (game.attacker, game.defender) == (0, 1)
    assert game.view(0)["attack_limit"] == 6
    assert Game.from_dict(game.to_dict()).view(0)["attack_limit"] == 6


# ---------------------------------------------------------------- neighbours and classic together


def test_neighbours_and_classic_together_stop_at_the_limit_whoever_throws():
    game = position(
        "7S 7C AS",
        "8S 9S",
        "7D KD",
        "7H QD",
        options={"throw_in": "neighbours", "limit": "classic"},
    )
    assert game.view(None)["attack_limit"] == 2
    game.apply(0, attack("7S"))
    assert game.legal_actions(3) == []
    game.apply(2, attack("7D"))
    assert game.legal_actions(0) == []
    assert_rejected(game, 0, attack("7C"), "throw_limit")
