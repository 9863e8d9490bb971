"""The public face of ENGINE_CONTRACT.md: junk in, IllegalAction out, state untouched."""

from __future__ import annotations

import json

import pytest

from games.engine import Game, IllegalAction


def mid_bout_game() -> Game:
    game = Game.from_position(
        {
            "hands": [["6S", "6C", "9D"], ["7S", "8C", "KD"], ["6D", "AS"]],
            "talon": ["TC", "JH"],
            "trump": "H",
            "attacker": 0,
            "first_bout": False,
        }
    )
    game.apply(0, {"type": "attack", "cards": ["6S"]})
    return game


JUNK_ACTIONS = [
    None,
    "take",
    42,
    ["attack", "6C"],
    {},
    {"type": None},
    {"type": "steal"},
    {"type": 1},
    {"type": ["take"]},
    {"type": "attack"},
    {"type": "attack", "cards": "6C"},
    {"type": "attack", "cards": []},
    {"type": "attack", "cards": ["6c"]},
    {"type": "attack", "cards": ["1X"]},
    {"type": "attack", "cards": [None]},
    {"type": "attack", "cards": [["6C"]]},
    {"type": "attack", "cards": [{"6C": 1}]},
    {"type": "attack", "cards": ["6C", "6C"]},
    {"type": "attack", "cards": {"6C": True}},
    {"type": "attack", "card": "6C"},
    {"type": "attack", "cards": ["6C"], "extra": 1},
    {"type": "defend", "attack": "6S"},
    {"type": "defend", "attack": "6S", "card": 7},
    {"type": "defend", "attack": ["6S"], "card": "7S"},
    {"type": "defend", "attack": "6S", "card": "7S", "cards": ["7S"]},
    {"type": "transfer", "cards": None},
    {"type": "transfer", "cards": ["6D", "6D"]},
    {"type": "take", "cards": []},
    {"type": "pass", "seat": 2},
]


@pytest.mark.parametrize("action", JUNK_ACTIONS, ids=repr)
def test_malformed_actions_are_refused_without_change(action):
    game = mid_bout_game()
    before = game.to_dict()
    with pytest.raises(IllegalAction) as raised:
        game.apply(1, action)
    assert raised.value.code == "malformed"
    assert isinstance(raised.value, ValueError) and raised.value.message
    assert game.to_dict() == before


@pytest.mark.parametrize("seat", [None, "1", 1.0, True, False, -1, 3, 99, [1], {"seat": 1}])
def test_bad_seats_are_refused_without_change(seat):
    game = mid_bout_game()
    before = game.to_dict()
    with pytest.raises(IllegalAction) as raised:
        game.apply(seat, {"type": "take"})
    assert raised.value.code == "bad_seat"
    assert game.to_dict() == before
    assert game.legal_actions(seat) == []


def test_copy_is_independent():
    game = mid_bout_game()
    clone = game.copy()
    clone.apply(1, {"type": "take"})
    assert game.view(None)["taking"] is False
    assert clone.to_dict() != game.to_dict()


def test_state_round_trips_through_json():
    game = mid_bout_game()
    game.apply(1, {"type": "defend", "attack": "6S", "card": "7S"})
    game.apply(0, {"type": "pass"})
    state = game.to_dict()
    restored = Game.from_dict(json.loads(json.dumps(state)))
    assert restored.to_dict() == state
    assert restored.legal_actions(2) == game.legal_actions(2)


@pytest.mark.parametrize(
    "damage",
    [
        lambda state: state.pop("hands"),
        lambda state: state.update(format=99),
        lambda state: state.update(trump="X"),
        lambda state: state.update(table=[{"attack": "ZZ", "defense": None}]),
        lambda state: state.update(talon="6S"),
        lambda state: state["hands"][0].append(state["hands"][1][0]),
        lambda state: state["hands"][0].pop(),
        lambda state: state["talon"].append(state["talon"][0]),
        lambda state: state.update(attacker=5),
        lambda state: state.update(defender="1"),
        lambda state: state.update(passed=[7]),
        lambda state: state.update(out=[True]),
        lambda state: state.update(places=[[9]]),
        lambda state: state.update(bouts=-1),
    ],
)
def test_from_dict_rejects_a_damaged_state(damage):
    state = mid_bout_game().to_dict()
    damage(state)
    with pytest.raises(ValueError):
        Game.from_dict(state)


def test_spectator_view_has_no_hand_and_no_actions():
    view = mid_bout_game().view(None)
    assert view["seat"] is None and view["hand"] == [] and view["legal_actions"] == []
    assert view["table"] == [{"attack": "6S", "defense": None}]
    assert view["waiting_for"] == [1]


def test_view_of_a_seat_lists_its_legal_actions():
    game = mid_bout_game()
    assert game.view(1)["legal_actions"] == game.legal_actions(1)
    with pytest.raises(ValueError):
        game.view(7)


def test_new_game_without_a_seed_stores_one_that_replays_it():
    game = Game.new(players=3)
    assert Game.new(players=3, seed=game.seed).to_dict() == game.to_dict()


GOOD_POSITION = {
    "hands": [["6S"], ["7S"]],
    "talon": ["9H"],
    "trump": "H",
    "attacker": 0,
    "first_bout": False,
}


@pytest.mark.parametrize(
    "change",
    [
        {"hands": [["6S"]]},
        {"hands": [["6S"], ["6S"]]},
        {"hands": [["6S"], ["XX"]]},
        {"hands": "6S 7S"},
        {"talon": ["6S", "9H"]},
        {"talon": ["9S"]},
        {"trump": "X"},
        {"trump": None},
        {"attacker": 2},
        {"attacker": True},
        {"attacker": "0"},
        {"first_bout": "no"},
        {"places": [[1]]},
        {"hands": [["6S"], []]},
        {"hands": [[], []], "places": [[0, 1]]},
        {"trump_card": "TH"},
    ],
)
def test_from_position_rejects_bad_positions(change):
    with pytest.raises(ValueError):
        Game.from_position({**GOOD_POSITION, **change})


def test_from_position_accepts_a_trump_card_when_the_talon_is_empty():
    game = Game.from_position({**GOOD_POSITION, "talon": [], "trump_card": "9H"})
    assert game.view(0)["trump_card"] == "9H" and game.view(0)["talon_size"] == 0


def test_from_position_defaults_to_no_first_bout_and_an_empty_talon():
    game = Game.from_position(
        {
            "hands": [["6S", "9C"], [], ["6C", "KD"], ["8S", "8C"]],
            "trump": "H",
            "attacker": 0,
            "places": [[1]],
        }
    )
    view = game.view(None)
    assert view["first_bout"] is False and view["talon_size"] == 0
    assert view["trump_card"] is None and view["trump_suit"] == "H"
    assert view["out"] == [1] and view["places"] == [[1]] and game.defender == 2
    assert game.legal_actions(1) == []
    with pytest.raises(IllegalAction) as raised:
        game.apply(1, {"type": "attack", "cards": ["6S"]})
    assert raised.value.code == "not_your_turn"
    game.apply(0, {"type": "attack", "cards": ["6S"]})
    game.apply(2, {"type": "transfer", "cards": ["6C"]})
    assert game.defender == 3


CONTRACT_VIEW_KEYS = {
    "seat",
    "hand",
    "hand_sizes",
    "talon_size",
    "trump_card",
    "trump_suit",
    "table",
    "attacker",
    "defender",
    "taking",
    "passed",
    "out",
    "places",
    "finished",
    "first_bout",
    "waiting_for",
    "legal_actions",
}


def test_view_holds_every_contract_key_and_survives_json():
    game = mid_bout_game()
    for seat in (None, 0, 1, 2):
        view = game.view(seat)
        assert view.keys() >= CONTRACT_VIEW_KEYS
        assert json.loads(json.dumps(view)) == view
    view = game.view(1)
    assert view["seat"] == 1 and view["hand"] == ["7S", "8C", "KD"]
    assert view["hand_sizes"] == [2, 3, 2] and view["talon_size"] == 2
    assert view["trump_card"] == "JH" and view["trump_suit"] == "H"
    assert view["table"] == [{"attack": "6S", "defense": None}]
    assert (view["attacker"], view["defender"], view["taking"]) == (0, 1, False)
    assert view["passed"] == [] and view["out"] == [] and view["places"] == []
    assert view["finished"] is False and view["first_bout"] is False
    assert view["waiting_for"] == [1] and view["legal_actions"] == game.legal_actions(1)


def test_from_position_reads_a_trump_card_of_none_as_no_card_shown():
    game = Game.from_position({**GOOD_POSITION, "talon": [], "trump_card": None})
    assert game.view(0)["trump_card"] is None and game.view(0)["trump_suit"] == "H"
    with_talon = Game.from_position({**GOOD_POSITION, "trump_card": None})
    assert with_talon.view(0)["trump_card"] == "9H"


def test_still_in_lists_the_seats_holding_cards_and_keeps_the_durak_at_the_end():
    game = Game.from_position(
        {
            "hands": [["6S", "8H"], [], ["7S"]],
            "talon": [],
            "trump": "C",
            "attacker": 0,
            "first_bout": False,
            "places": [[1]],
        }
    )
    assert game.still_in == [0, 2]
    game.apply(0, {"type": "attack", "cards": ["6S"]})
    game.apply(2, {"type": "defend", "attack": "6S", "card": "7S"})
    assert game.finished
    assert game.still_in == [0] == [game.durak]
