"""RULES.md §6 (the bank) and the §7 worked example."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DEFAULT_PERCENTAGES,
    BadPercentages,
    Share,
    bank_shares,
    check_percentages,
    house_commission,
    split_bank,
)

FOUR = [60, 30, 10, 0]


def test_two_players_the_winner_takes_the_whole_bank():
    assert split_bank(500, [[1], [0]], [100, 0]) == {1: 500, 0: 0}


def test_places_in_leaving_order_take_their_percentages():
    assert split_bank(1000, [[2], [0], [3], [1]], FOUR) == {2: 600, 0: 300, 3: 100, 1: 0}


def test_customer_example_first_two_leave_together_and_get_45_percent_each():
    assert split_bank(10000, [[0, 1], [2], [3]], FOUR) == {0: 4500, 1: 4500, 2: 1000, 3: 0}


def test_customer_example_three_players_draw_between_2nd_and_3rd_is_10_percent_each():
    assert split_bank(1000, [[0], [1, 2]], [80, 20, 0]) == {0: 800, 1: 100, 2: 100}


def test_customer_example_four_players_draw_between_3rd_and_4th_is_5_percent_each():
    assert split_bank(1000, [[0], [1], [2, 3]], FOUR) == {0: 600, 1: 300, 2: 50, 3: 50}


def test_worked_example_of_section_7():
    a, b, c, d = 0, 1, 2, 3
    payouts = split_bank(40000, [[b], [c, d], [a]], FOUR)
    assert payouts == {b: 24000, c: 8000, d: 8000, a: 0}


def test_shares_round_down_and_leftover_units_go_by_place_then_lower_seat():
    # 101: 60.6 -> 60, 20.2 -> 20 twice; one unit left, for the first place.
    assert split_bank(101, [[3], [2, 0], [1]], FOUR) == {3: 61, 0: 20, 2: 20, 1: 0}
    # 103: 61.8 -> 61, 20.6 -> 20 twice; two left: the first place, then the lower seat of
    # the shared place.
    assert split_bank(103, [[3], [2, 0], [1]], FOUR) == {3: 62, 0: 21, 2: 20, 1: 0}


def test_default_table_is_the_rules_table():
    assert DEFAULT_PERCENTAGES == {
        2: (100, 0),
        3: (80, 20, 0),
        4: (60, 30, 10, 0),
        5: (50, 30, 15, 5, 0),
        6: (40, 30, 15, 10, 5, 0),
    }


def test_a_table_of_rows_is_looked_up_by_the_number_of_players():
    places = [[4], [0], [1, 2], [3]]
    assert split_bank(1000, places, DEFAULT_PERCENTAGES) == {4: 500, 0: 300, 1: 100, 2: 100, 3: 0}


def test_exact_decimal_percentages_are_accepted():
    row = [Decimal("62.5"), Decimal("37.5"), 0]
    assert split_bank(800, [[0], [1], [2]], row) == {0: 500, 1: 300, 2: 0}


def test_float_percentages_are_read_as_the_decimals_they_print_as():
    assert split_bank(800, [[0], [1], [2]], [62.5, 37.5, 0.0]) == {0: 500, 1: 300, 2: 0}


def test_places_may_leave_out_an_unpaid_durak():
    # RULES §7 without the durak's own list: A (seat 0) is the durak and gets nothing anyway.
    assert split_bank(40000, [[1], [2, 3]], [60, 30, 10, 0]) == {1: 24000, 2: 8000, 3: 8000}


def test_places_must_list_every_paid_place():
    with pytest.raises(ValueError):
        split_bank(40000, [[1], [2]], [60, 30, 10, 0])


@pytest.mark.parametrize(
    ("bank", "places", "percentages"),
    [
        (-1, [[0], [1]], [100, 0]),
        (10.0, [[0], [1]], [100, 0]),
        (True, [[0], [1]], [100, 0]),
        ("100", [[0], [1]], [100, 0]),
        (100, [], [100, 0]),
        (100, [[0], []], [100, 0]),
        (100, [[0], [0]], [100, 0]),
        (100, [[0], [2]], [100, 0]),
        (100, [["0"], [1]], [100, 0]),
        (100, [[0], [True]], [100, 0]),
        (100, "01", [100, 0]),
        (100, [[0], [1]], [100]),
        (100, [[0], [1]], [90, 0]),
        (100, [[0], [1]], [40, 60]),
        (100, [[0], [1], [2]], [80, 10, 10]),
        (100, [[0], [1]], [-10, 110]),
        (100, [[0], [1]], {3: [80, 20, 0]}),
        (100, [[0], [1]], None),
    ],
)
def test_bad_inputs_raise_value_error(bank, places, percentages):
    with pytest.raises(ValueError):
        split_bank(bank, places, percentages)


@st.composite
def finished_places(draw):
    players = draw(st.integers(2, 6))
    seats = draw(st.permutations(range(players)))
    cuts = sorted(draw(st.sets(st.integers(1, players - 1), max_size=players - 1)))
    bounds = [0, *cuts, players]
    return [list(seats[start:end]) for start, end in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=300, deadline=None)
@given(bank=st.integers(0, 10**12), places=finished_places())
def test_payouts_always_add_up_to_the_bank_and_follow_place_order(bank, places):
    seats = sum(len(group) for group in places)
    payouts = split_bank(bank, places, DEFAULT_PERCENTAGES[seats])
    assert sum(payouts.values()) == bank
    assert sorted(payouts) == list(range(seats))
    ordered = [min(payouts[seat] for seat in group) for group in places]
    assert ordered == sorted(ordered, reverse=True)
    for group in places:
        assert max(payouts[seat] for seat in group) - min(payouts[seat] for seat in group) <= 1


def test_each_share_names_its_place_and_percent_and_sharers_take_the_first_place():
    assert bank_shares(10001, [[1, 0], [2], [3]], FOUR) == [
        Share(seat=0, place=1, percent=Fraction(45), amount=4501),
        Share(seat=1, place=1, percent=Fraction(45), amount=4500),
        Share(seat=2, place=3, percent=Fraction(10), amount=1000),
        Share(seat=3, place=4, percent=Fraction(0), amount=0),
    ]


def test_a_shared_last_place_splits_an_odd_percentage():
    shares = bank_shares(1000, [[0], [1, 2]], [75, 25, 0])
    assert [(share.place, share.percent) for share in shares] == [
        (1, 75),
        (2, Fraction(25, 2)),
        (2, Fraction(25, 2)),
    ]


@pytest.mark.parametrize(
    ("bank", "percent", "commission"),
    [(999, Decimal("10"), 99), (1_001, Decimal("2.5"), 25), (3, "33.33", 0), (400, 100, 400)],
)
def test_the_house_commission_is_rounded_down_to_a_whole_unit(bank, percent, commission):
    assert house_commission(bank, percent) == commission


@pytest.mark.parametrize(("bank", "percent"), [(100, Decimal("101")), (100, -1), (100, "x")])
def test_a_commission_outside_0_to_100_percent_is_refused(bank, percent):
    with pytest.raises(ValueError):
        house_commission(bank, percent)


@pytest.mark.parametrize(
    ("row", "code"),
    [
        ([], "not_a_row"),
        (["60", 40, 0], "not_a_row"),
        ([60, 30, 5], "not_100"),
        ([30, 60, 10, 0], "increasing"),
        ([60, 30, 5, 5], "last_not_zero"),
    ],
)
def test_a_payout_row_that_breaks_the_rules_names_what_it_breaks(row, code):
    with pytest.raises(BadPercentages) as refused:
        check_percentages(row)
    assert refused.value.code == code
