"""One test per rule of RULES.md §1-§5, on exact positions built with Game.from_position."""

from __future__ import annotations

import random

import pytest

from games.engine import Game, IllegalAction
from games.engine.cards import CODES, DECKS, cards_in

RANK_ORDER = "6789TJQKA"
SUIT_LETTERS = "SCDH"
TAKE = {"type": "take"}
PASS = {"type": "pass"}


def position(*hands: str, talon: str = "", trump: str = "H", attacker: int = 0, **extra) -> Game:
    """A game from space-separated hands; seats named in `places` must pass an empty hand."""
    return Game.from_position(
        {
            "hands": [hand.split() for hand in hands],
            "talon": talon.split(),
            "trump": trump,
            "attacker": attacker,
            "first_bout": extra.pop("first_bout", False),
            "places": extra.pop("places", []),
            **extra,
        }
    )


def attack(*cards: str) -> dict:
    return {"type": "attack", "cards": list(cards)}


def defend(attacked: str, card: str) -> dict:
    return {"type": "defend", "attack": attacked, "card": card}


def transfer(*cards: str) -> dict:
    return {"type": "transfer", "cards": list(cards)}


def hand(game: Game, seat: int) -> set[str]:
    return set(game.to_dict()["hands"][seat])


def assert_rejected(game: Game, seat: object, action: object, code: str) -> None:
    before = game.to_dict()
    with pytest.raises(IllegalAction) as raised:
        game.apply(seat, action)
    assert raised.value.code == code
    assert game.to_dict() == before


def table(game: Game) -> list[tuple[str, str | None]]:
    return [(pair["attack"], pair["defense"]) for pair in game.view(None)["table"]]


# ---------------------------------------------------------------- §1 cards and seats


def test_deck_is_36_distinct_cards_coded_rank_then_suit():
    state = Game.new(players=3, seed=11).to_dict()
    cards = [card for held in state["hands"] for card in held] + state["talon"]
    assert len(cards) == 36
    assert set(cards) == {rank + suit for rank in RANK_ORDER for suit in SUIT_LETTERS}


@pytest.mark.parametrize("rank", range(8))
def test_ranks_run_from_six_up_to_ace(rank):
    low, high = RANK_ORDER[rank] + "S", RANK_ORDER[rank + 1] + "S"
    higher_led = position(f"{high} AD", f"{low} KD")
    higher_led.apply(0, attack(high))
    assert_rejected(higher_led, 1, defend(high, low), "cannot_beat")
    lower_led = position(f"{low} AD", f"{high} KD")
    lower_led.apply(0, attack(low))
    assert defend(low, high) in lower_led.legal_actions(1)
    lower_led.apply(1, defend(low, high))
    assert high not in hand(lower_led, 1)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_two_to_six_players_may_play(players):
    assert Game.new(players=players, seed=3).players == players


@pytest.mark.parametrize("players", [0, 1, 7, True, "4", None])
def test_other_player_counts_are_refused(players):
    with pytest.raises(ValueError):
        Game.new(players=players, seed=3)


def test_left_is_next_seat_wrapping_and_skipping_players_out():
    assert position("6S", "7S", "8S", "9S", attacker=3).defender == 0
    game = position("6S", "", "8S", "9S", places=[[1]], attacker=0)
    assert game.defender == 2


# ---------------------------------------------------------------- §2 deal and first move


def test_same_seed_gives_same_deal_and_other_seeds_differ():
    assert Game.new(players=4, seed=99).to_dict() == Game.new(players=4, seed=99).to_dict()
    deals = {str(Game.new(players=4, seed=seed).to_dict()["hands"]) for seed in range(20)}
    assert len(deals) == 20


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_deal_gives_six_cards_to_each_player(players):
    view = Game.new(players=players, seed=5).view(None)
    assert view["hand_sizes"] == [6] * players
    assert view["talon_size"] == 36 - 6 * players


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_face_up_trump_card_lies_under_the_talon_and_sets_trump(players):
    for seed in range(10):
        state = Game.new(players=players, seed=seed).to_dict()
        assert state["talon"][-1] == state["trump_card"]
        assert state["trump"] == state["trump_card"][1]


def test_six_players_trump_card_is_the_last_dealt_and_stays_in_the_last_hand():
    for seed in range(10):
        game = Game.new(players=6, seed=seed)
        state = game.to_dict()
        assert state["talon"] == []
        assert state["trump_card"] in state["hands"][5]
        assert game.view(0)["trump_card"] == state["trump_card"]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_first_attacker_holds_the_lowest_trump(players):
    for seed in range(20):
        game = Game.new(players=players, seed=seed)
        state = game.to_dict()
        trumps = [
            (RANK_ORDER.index(card[0]), seat)
            for seat, held in enumerate(state["hands"])
            for card in held
            if card[1] == state["trump"]
        ]
        assert game.attacker == min(trumps)[1]
        assert game.defender == (game.attacker + 1) % players
        assert state["first_bout"] is True


def test_redeal_from_a_derived_seed_when_nobody_holds_a_trump():
    redealt = 0
    for seed in range(400):
        first_shuffle = cards_in(DECKS[36])
        random.Random(seed).shuffle(first_shuffle)
        dealt = {CODES[card] for card in first_shuffle[:12]}
        first_trump = CODES[first_shuffle[12]][1]
        if any(card[1] == first_trump for card in dealt):
            continue
        redealt += 1
        game = Game.new(players=2, seed=seed)
        state = game.to_dict()
        assert set(state["hands"][0]) | set(state["hands"][1]) != dealt
        assert any(card[1] == state["trump"] for card in state["hands"][game.attacker])
        assert Game.new(players=2, seed=seed).to_dict() == state
    assert redealt > 0


def test_view_shows_sizes_and_trump_but_no_other_hand_nor_talon_order():
    game = Game.new(players=4, seed=8)
    state = game.to_dict()
    view = game.view(2)
    assert view["hand"] == state["hands"][2]
    assert view["hand_sizes"] == [6, 6, 6, 6]
    assert view["talon_size"] == 12 and view["trump_card"] == state["trump_card"]
    text = str(view)
    hidden = [card for seat in (0, 1, 3) for card in state["hands"][seat]] + state["talon"][:-1]
    assert not [card for card in hidden if card in text]


# ---------------------------------------------------------------- §3.1 lead


def test_attacker_leads_one_card():
    game = position("6S 9C", "7S 8D")
    game.apply(0, attack("6S"))
    assert table(game) == [("6S", None)]
    assert hand(game, 0) == {"9C"}


def test_attacker_leads_several_cards_of_one_rank():
    game = position("6S 6C 6D 9C", "7S 8D TD")
    game.apply(0, attack("6S", "6C", "6D"))
    assert table(game) == [("6S", None), ("6C", None), ("6D", None)]


def test_lead_of_mixed_ranks_is_refused():
    assert_rejected(position("6S 7C", "8S 8D"), 0, attack("6S", "7C"), "mixed_ranks")


def test_lead_may_not_exceed_the_defenders_hand():
    game = position("6S 6C 6D", "7S 8D")
    assert_rejected(game, 0, attack("6S", "6C", "6D"), "throw_limit")
    assert all(len(action["cards"]) <= 2 for action in game.legal_actions(0))


def test_legal_leads_are_every_same_rank_set_within_the_limit():
    game = position("6S 6C 6D 9H", "7S 8D AC")
    leads = {tuple(sorted(action["cards"])) for action in game.legal_actions(0)}
    sixes = {("6S",), ("6C",), ("6D",), ("6C", "6S"), ("6D", "6S"), ("6C", "6D")}
    assert leads == sixes | {("6C", "6D", "6S"), ("9H",)}


def test_only_the_attacker_leads():
    game = position("6S", "7S", "8S")
    assert_rejected(game, 2, attack("8S"), "not_your_turn")
    assert_rejected(game, 1, attack("7S"), "not_your_turn")
    assert game.legal_actions(1) == [] and game.legal_actions(2) == []


# ---------------------------------------------------------------- §3.2 beat


def test_defender_beats_with_a_higher_card_of_the_same_suit():
    game = position("6S 6C", "7S 8D")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert table(game) == [("6S", "7S")]


def test_lower_card_or_other_plain_suit_cannot_beat():
    game = position("8S 9C", "7S 9D AD")
    game.apply(0, attack("8S"))
    assert_rejected(game, 1, defend("8S", "7S"), "cannot_beat")
    assert_rejected(game, 1, defend("8S", "9D"), "cannot_beat")
    assert not [a for a in game.legal_actions(1) if a["type"] == "defend"]


def test_any_trump_beats_a_plain_card():
    game = position("AS AC", "6H 8D")
    game.apply(0, attack("AS"))
    game.apply(1, defend("AS", "6H"))
    assert table(game) == [("AS", "6H")]


def test_trump_is_beaten_only_by_a_higher_trump():
    game = position("8H 9C", "7H AS 9H")
    game.apply(0, attack("8H"))
    assert_rejected(game, 1, defend("8H", "7H"), "cannot_beat")
    assert_rejected(game, 1, defend("8H", "AS"), "cannot_beat")
    game.apply(1, defend("8H", "9H"))
    assert table(game) == [("8H", "9H")]


def test_beat_names_an_unbeaten_table_card():
    game = position("6S 6C", "7S 7C AD")
    game.apply(0, attack("6S"))
    assert_rejected(game, 1, defend("6D", "7S"), "attack_not_on_table")
    game.apply(1, defend("6S", "7S"))
    game.apply(0, attack("6C"))
    assert_rejected(game, 1, defend("6S", "7C"), "attack_not_on_table")


# ---------------------------------------------------------------- §3.2 transfer


def test_transfer_moves_the_defence_left_and_old_defender_becomes_thrower():
    game = position("6S 9C", "6C 6D KD", "8S 8C 8D")
    game.apply(0, attack("6S"))
    game.apply(1, transfer("6C"))
    assert game.defender == 2 and game.attacker == 0
    assert game.waiting_for == [2]
    assert attack("6D") in game.legal_actions(1)
    game.apply(1, attack("6D"))
    assert table(game) == [("6S", None), ("6C", None), ("6D", None)]


def test_no_transfer_in_the_first_bout():
    game = position("6S 9C", "6C KD", "8S 8C", first_bout=True)
    game.apply(0, attack("6S"))
    assert_rejected(game, 1, transfer("6C"), "transfer_not_allowed")
    assert not [a for a in game.legal_actions(1) if a["type"] == "transfer"]


def test_no_transfer_once_a_card_is_beaten():
    game = position("6S 6D", "7S 6C KD", "8S 8C 8D")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    game.apply(0, attack("6D"))
    assert_rejected(game, 1, transfer("6C"), "transfer_not_allowed")


def test_transfer_only_with_the_rank_on_the_table():
    game = position("6S 9C", "7C 6C KD", "8S 8C 8D")
    game.apply(0, attack("6S"))
    assert_rejected(game, 1, transfer("7C"), "transfer_not_allowed")
    assert_rejected(game, 1, transfer("6C", "7C"), "transfer_not_allowed")


def test_no_transfer_after_take():
    game = position("6S 9C", "6C KD", "8S 8C 6D")
    game.apply(0, attack("6S"))
    game.apply(1, TAKE)
    assert_rejected(game, 1, transfer("6C"), "transfer_not_allowed")


def test_transfer_needs_the_new_defender_to_hold_every_unbeaten_card():
    short = position("6S 9C", "6C KD", "8S")
    short.apply(0, attack("6S"))
    assert_rejected(short, 1, transfer("6C"), "transfer_not_allowed")
    enough = position("6S 9C", "6C KD", "8S 8C")
    enough.apply(0, attack("6S"))
    enough.apply(1, transfer("6C"))
    assert enough.defender == 2


def test_multi_card_transfer_respects_the_new_defenders_hand():
    game = position("6S 9C", "6C 6D KD", "8S 8C")
    game.apply(0, attack("6S"))
    assert_rejected(game, 1, transfer("6C", "6D"), "transfer_not_allowed")
    wide = position("6S 9C", "6C 6D KD", "8S 8C 8D")
    wide.apply(0, attack("6S"))
    wide.apply(1, transfer("6C", "6D"))
    assert wide.defender == 2 and len(table(wide)) == 3


def test_new_defender_may_transfer_again():
    game = position("6S 9C 9D 9S", "6C KD", "6D 8S 8C")
    game.apply(0, attack("6S"))
    game.apply(1, transfer("6C"))
    game.apply(2, transfer("6D"))
    assert game.defender == 0 and game.attacker == 0
    assert game.waiting_for == [0]


def test_two_player_transfer_goes_back_to_the_attacker():
    game = position("6S 9C 9D", "6C KD")
    game.apply(0, attack("6S"))
    game.apply(1, transfer("6C"))
    assert game.defender == 0 and game.attacker == 0
    assert {"type": "take"} in game.legal_actions(0)


def test_transfer_skips_players_who_are_out():
    game = position("6S 9C", "6C KD", "", "8S 8C", places=[[2]])
    game.apply(0, attack("6S"))
    game.apply(1, transfer("6C"))
    assert game.defender == 3


def test_transfer_counts_thrown_in_cards_among_those_the_new_defender_must_hold():
    short = position("6S 6D 9C", "6C KD AS", "8S 8C")
    short.apply(0, attack("6S"))
    short.apply(0, attack("6D"))
    assert_rejected(short, 1, transfer("6C"), "transfer_not_allowed")
    assert [a for a in short.legal_actions(1) if a["type"] == "transfer"] == []
    enough = position("6S 6D 9C", "6C KD AS", "8S 8C 8D")
    enough.apply(0, attack("6S"))
    enough.apply(0, attack("6D"))
    enough.apply(1, transfer("6C"))
    assert enough.defender == 2 and len(table(enough)) == 3


def test_defender_may_list_every_beat_every_single_card_transfer_and_take():
    game = position("6S 9C 9D", "7S 6C 6H AS", "8S 8C 8D 9H")
    game.apply(0, attack("6S"))
    listed = game.legal_actions(1)
    assert sorted(map(str, listed)) == sorted(
        map(
            str,
            [
                defend("6S", "7S"),
                defend("6S", "AS"),
                defend("6S", "6H"),
                transfer("6C"),
                transfer("6H"),
                TAKE,
            ],
        )
    )
    assert len(listed) == 6


def test_taken_after_a_transfer_the_player_left_of_the_final_defender_leads():
    game = position("6S 9C 9D", "6C KD", "8S 8C 7D", talon="TC JC QC KC AC TH")
    game.apply(0, attack("6S"))
    game.apply(1, transfer("6C"))
    game.apply(2, TAKE)
    assert game.bouts == 1
    assert hand(game, 0) == {"9C", "9D", "TC", "JC", "QC", "KC"}
    assert hand(game, 1) == {"KD", "AC", "TH"}
    assert hand(game, 2) == {"8S", "8C", "7D", "6S", "6C"}
    assert game.attacker == 0 and game.defender == 1


# ---------------------------------------------------------------- §3.2 take


def test_after_take_the_defender_neither_beats_nor_transfers():
    game = position("6S 9C", "7S 6C KD", "8S 6D")
    game.apply(0, attack("6S"))
    game.apply(1, TAKE)
    assert game.view(None)["taking"] is True
    assert_rejected(game, 1, defend("6S", "7S"), "take_declared")
    assert_rejected(game, 1, TAKE, "take_declared")
    assert game.legal_actions(1) == []


def test_take_needs_an_unbeaten_card():
    game = position("6S 6C", "7S KD AD")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert_rejected(game, 1, TAKE, "take_not_allowed")


def test_take_allowed_with_some_cards_beaten():
    game = position("6S 6C 9D", "7S KD AD")
    game.apply(0, attack("6S", "6C"))
    game.apply(1, defend("6S", "7S"))
    game.apply(1, TAKE)
    assert game.bouts == 1 and hand(game, 1) == {"6S", "7S", "6C", "KD", "AD"}


def test_only_the_defender_beats_transfers_or_takes():
    game = position("6S 6C", "7S 6D KD", "8S 9S")
    game.apply(0, attack("6S"))
    assert_rejected(game, 2, defend("6S", "8S"), "not_your_turn")
    assert_rejected(game, 0, transfer("6C"), "not_your_turn")
    assert_rejected(game, 2, TAKE, "not_your_turn")


# ---------------------------------------------------------------- §3.3 throw-in


def test_throw_in_ranks_of_attacking_and_beating_cards():
    game = position("6S 7C 7D", "7S AD KD", "6C 9S")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    game.apply(2, attack("6C"))
    game.apply(0, attack("7C"))
    assert [pair[0] for pair in table(game)] == ["6S", "6C", "7C"]


def test_throw_in_of_a_rank_not_on_the_table_is_refused():
    game = position("6S 8C", "7S AD KD", "7D")
    game.apply(0, attack("6S"))
    assert_rejected(game, 0, attack("8C"), "rank_not_on_table")
    game.apply(1, defend("6S", "7S"))
    assert_rejected(game, 0, attack("8C"), "rank_not_on_table")


def test_any_thrower_throws_in_any_order_several_at_once():
    game = position("6S 6C 9C", "AS AC AD KD", "6D 6H 9S")
    game.apply(0, attack("6S"))
    game.apply(2, attack("6D", "6H"))
    game.apply(0, attack("6C"))
    assert [pair[0] for pair in table(game)] == ["6S", "6D", "6H", "6C"]


def test_throw_in_allowed_while_the_defender_is_to_move_but_not_by_him():
    game = position("6S 6C", "7S 6D KD", "9S")
    game.apply(0, attack("6S"))
    assert attack("6C") in game.legal_actions(0)
    assert_rejected(game, 1, attack("6D"), "not_your_turn")
    game.apply(0, attack("6C"))
    assert game.waiting_for == [1]


def test_unbeaten_cards_never_outnumber_the_defenders_hand_before_take():
    game = position("6S 6D 9C", "7S KD", "6C 9S")
    game.apply(0, attack("6S"))
    game.apply(2, attack("6C"))
    assert_rejected(game, 0, attack("6D"), "throw_limit")
    assert game.legal_actions(0) == []
    game.apply(1, defend("6S", "7S"))
    assert_rejected(game, 0, attack("6D"), "throw_limit")


def test_no_throw_limit_after_take():
    game = position("6S 6C 6D 9C", "KD", "6H 9S")
    game.apply(0, attack("6S"))
    game.apply(1, TAKE)
    game.apply(0, attack("6C", "6D"))
    game.apply(2, attack("6H"))
    assert hand(game, 1) == {"KD", "6S", "6C", "6D", "6H"}


def test_no_six_card_or_first_bout_five_card_limit():
    game = position("6S 6C 9S 8C", "8S 9C 9D 8H TS TC TD", "6D 6H 8D 9H", first_bout=True)
    game.apply(0, attack("6S", "6C"))
    game.apply(2, attack("6D", "6H"))
    for attacked, card in [("6S", "8S"), ("6C", "9C"), ("6D", "9D"), ("6H", "8H")]:
        game.apply(1, defend(attacked, card))
    game.apply(0, attack("9S", "8C"))
    game.apply(2, attack("8D"))
    assert len(table(game)) == 7
    discarded = game.view(None)["discard_size"]
    for attacked, card in [("9S", "TS"), ("8C", "TC"), ("8D", "TD")]:
        game.apply(1, defend(attacked, card))
    assert game.view(None)["discard_size"] == discarded + 14


def test_after_take_throw_ins_may_use_beating_ranks_and_outnumber_the_defenders_hand():
    game = position("6S 6C 8C 8H 6D", "8S KD", "8D 6H TS")
    game.apply(0, attack("6S", "6C"))
    game.apply(1, defend("6S", "8S"))
    game.apply(1, TAKE)
    assert {str(a) for a in game.legal_actions(0)} == {
        str(attack(card)) for card in ("6D", "8C", "8H")
    } | {str(PASS)}
    game.apply(0, attack("8C", "8H", "6D"))
    assert game.waiting_for == [2]
    game.apply(2, attack("8D", "6H"))
    assert game.bouts == 1
    assert hand(game, 1) == {"KD", "6S", "8S", "6C", "8C", "8H", "6D", "8D", "6H"}


# ---------------------------------------------------------------- §3.4 pass


def test_while_cards_are_unbeaten_the_game_waits_for_the_defender_alone():
    game = position("6S 6D", "7S 8C AD", "6C", "7D")
    game.apply(0, attack("6S"))
    assert game.waiting_for == [1]
    assert game.deadline_kind == "turn"
    assert_rejected(game, 2, PASS, "pass_not_allowed")
    assert PASS not in game.legal_actions(2)


def test_after_all_beaten_the_game_waits_for_throwers_with_a_card_to_throw():
    game = position("6S 6D", "7S 8C AD", "6C 9S", "7D 9C", "AS KC")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.waiting_for == [0, 2, 3]
    assert game.deadline_kind == "throw"


def test_only_waited_throwers_may_pass():
    game = position("6S 6D", "7S 8C AD", "6C 9S", "AS KC")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert_rejected(game, 3, PASS, "pass_not_allowed")
    assert_rejected(game, 1, PASS, "pass_not_allowed")
    assert game.legal_actions(3) == []
    game.apply(0, PASS)
    assert game.waiting_for == [2]
    assert_rejected(game, 0, PASS, "pass_not_allowed")


def test_a_new_card_on_the_table_clears_every_pass():
    game = position("6S 6D", "7S 8C 8D AD", "6C 9S", "7D 9C")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    game.apply(0, PASS)
    game.apply(3, PASS)
    assert game.waiting_for == [2] and game.view(None)["passed"] == [0, 3]
    game.apply(2, attack("6C"))
    assert game.view(None)["passed"] == []
    game.apply(1, defend("6C", "8C"))
    assert game.waiting_for == [0, 3]


def test_a_thrower_who_passed_may_still_throw_in_while_the_bout_lasts():
    game = position("6S 6D", "7S 8D AD", "6C 9S")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    game.apply(0, PASS)
    assert attack("6D") in game.legal_actions(0)
    game.apply(0, attack("6D"))
    assert game.waiting_for == [1] and game.view(None)["passed"] == []


def test_after_take_the_game_waits_for_throwers_with_a_matching_card():
    game = position("6S 6D 9C", "7H KD", "6C 9S", "TS")
    game.apply(0, attack("6S"))
    game.apply(1, TAKE)
    assert game.waiting_for == [0, 2]
    assert game.deadline_kind == "throw"
    game.apply(0, PASS)
    game.apply(2, attack("6C"))
    assert game.waiting_for == [0]


# ---------------------------------------------------------------- §3.5 end of bout


def test_beaten_off_when_every_thrower_passed_cards_discarded_defender_leads():
    game = position("6S 6D 9C", "7S KD AD", "6C 9S")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    discarded = game.view(None)["discard_size"]
    game.apply(0, PASS)
    game.apply(2, PASS)
    view = game.view(None)
    assert view["table"] == [] and view["discard_size"] == discarded + 2
    assert {"6S", "7S"} <= set(view["discard"]) and len(view["discard"]) == discarded + 2
    assert game.attacker == 1 and game.defender == 2
    assert "6S" not in str(game.to_dict()["hands"])


def test_beaten_off_at_once_when_nobody_can_throw_in():
    game = position("6S 9C", "7S KD", "TD")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.bouts == 1 and game.attacker == 1 and table(game) == []


def test_beaten_off_at_once_when_the_defender_has_no_cards_left():
    game = position("6S 6C KC", "7S", "6D 9C")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.bouts == 1
    assert hand(game, 0) == {"6C", "KC"} and hand(game, 2) == {"6D", "9C"}


def test_beaten_off_when_defender_is_out_the_next_player_to_his_left_leads():
    game = position("6S 6C KC", "7S", "6D 9C")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.places == [[1]]
    assert game.attacker == 2 and game.defender == 0


def test_taken_defender_picks_up_everything_and_misses_his_turn():
    game = position("6S 6C 7C", "7S KD", "6D AS")
    discarded = game.view(None)["discard_size"]
    game.apply(0, attack("6S", "6C"))
    game.apply(1, defend("6S", "7S"))
    game.apply(1, TAKE)
    game.apply(2, attack("6D"))
    game.apply(0, PASS)
    assert hand(game, 1) == {"6S", "7S", "6C", "6D", "KD"}
    assert game.attacker == 2 and game.defender == 0
    assert game.view(None)["discard_size"] == discarded


def test_new_defender_is_the_next_player_still_in_left_of_the_leader():
    game = position("6S 9C", "", "7S AD", "8S AC", places=[[1]], attacker=3)
    assert game.defender == 0
    game.apply(3, attack("8S"))
    game.apply(0, TAKE)
    assert game.attacker == 2 and game.defender == 3


# ---------------------------------------------------------------- §3.6 drawing


def test_drawing_leader_first_then_clockwise_final_defender_last():
    game = position(
        "9S TS",
        "6C 9C",
        "6S 9D AD",
        "7S KC",
        talon="6D 7D 8D 9H TH JH QH KD",
        trump="D",
        attacker=2,
    )
    game.apply(2, attack("6S"))
    game.apply(3, defend("6S", "7S"))
    game.apply(1, attack("6C"))
    game.apply(3, defend("6C", "KC"))
    assert game.bouts == 1
    assert hand(game, 2) == {"9D", "AD", "6D", "7D", "8D", "9H"}
    assert hand(game, 0) == {"9S", "TS", "TH", "JH", "QH", "KD"}
    assert hand(game, 1) == {"9C"}
    assert hand(game, 3) == set()
    assert game.talon_size == 0 and game.places == [[3]]


def test_final_defender_draws_last_even_when_he_led():
    game = position("6S 7S 7C 9D", "6C TD JD QD", talon="8C 9C TC JC QC KC AC 8H")
    game.apply(0, attack("6S"))
    game.apply(1, transfer("6C"))
    game.apply(0, defend("6S", "7S"))
    game.apply(0, defend("6C", "7C"))
    assert hand(game, 1) == {"TD", "JD", "QD", "8C", "9C", "TC"}
    assert hand(game, 0) == {"9D", "JC", "QC", "KC", "AC", "8H"}
    assert game.attacker == 0 and game.defender == 1


def test_when_the_talon_runs_out_later_hands_stay_short():
    game = position("6S 8S", "7S 9C", "TD 9D", talon="JD QH")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert hand(game, 0) == {"8S", "JD", "QH"}
    assert hand(game, 1) == {"9C"}
    assert game.talon_size == 0


# ---------------------------------------------------------------- §4 leaving, durak, draw


def test_player_with_no_cards_and_empty_talon_cannot_act():
    game = position("6S", "7S 8C 9S", "6C 7D")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.waiting_for == [2]
    assert game.legal_actions(0) == []
    assert_rejected(game, 0, PASS, "pass_not_allowed")


def test_player_with_no_cards_after_drawing_from_empty_talon_is_out():
    game = position("6S", "7S 8C 9S", "6C 7D")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    game.apply(2, PASS)
    assert game.places == [[0]] and not game.finished
    assert game.view(None)["out"] == [0]
    assert game.attacker == 1 and game.defender == 2


def test_player_who_ran_out_but_could_draw_is_not_out():
    game = position("6S", "7S 8C", talon="9C TC JC QC KC AC AH")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.places == [] and game.view(None)["hand_sizes"] == [6, 2]


def test_players_going_out_after_the_same_bout_leave_together():
    game = position("6S", "7S", "6C KD", "9D")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.places == [[0, 1]] and not game.finished
    assert game.attacker == 2 and game.defender == 3


def test_game_ends_when_one_player_is_left_and_he_is_the_durak():
    game = position("6S", "7S", "6C KD")
    game.apply(0, attack("6S"))
    game.apply(1, defend("6S", "7S"))
    assert game.finished and game.places == [[0, 1], [2]] and game.durak == 2
    assert game.waiting_for == [] and game.deadline_kind is None
    assert_rejected(game, 2, attack("6C"), "game_finished")
    assert all(game.legal_actions(seat) == [] for seat in range(3))


def test_draw_when_the_last_players_go_out_after_the_same_bout():
    game = position("", "6S", "7S", places=[[0]], attacker=1)
    game.apply(1, attack("6S"))
    game.apply(2, defend("6S", "7S"))
    assert game.finished and game.places == [[0], [1, 2]] and game.durak is None


# ---------------------------------------------------------------- §5 time (server extras)


def test_timeout_for_the_leading_attacker_plays_his_lowest_plain_card():
    assert position("AH 6H KS 7S", "8D").timeout_action(0) == attack("7S")
    assert position("AH 8H", "8D").timeout_action(0) == attack("8H")


def test_timeout_for_the_defender_takes_and_for_a_thrower_passes():
    game = position("6S 6C", "7S 8C AD", "6D")
    game.apply(0, attack("6S"))
    assert game.timeout_action(1) == TAKE
    game.apply(1, defend("6S", "7S"))
    assert game.timeout_action(0) == PASS and game.timeout_action(2) == PASS
    for idle in (1, True, None, "0"):
        with pytest.raises(IllegalAction) as raised:
            game.timeout_action(idle)
        assert raised.value.code == "not_your_turn"
