"""The tournaments' arithmetic: points by exit place, the top half, the prize split."""

from __future__ import annotations

from fractions import Fraction

from tournaments.scoring import game_points, place_points, prize_amounts, prize_weights, top_half


def test_places_give_4_2_1_0_at_four_and_a_shared_place_shares_them():
    assert [place_points(p, 4) // 60 for p in range(1, 5)] == [4, 2, 1, 0]
    # Two out together first share 4 + 2; the last two share 1 + 0.
    assert game_points([2, 2], 4) == [(1, 180), (3, 30)]
    assert game_points([1, 1, 1], 3) == [(1, 120), (2, 60), (3, 0)]
    assert game_points([1, 2], 3) == [(1, 120), (2, 30)]


def test_the_top_half_counts_a_shared_place_by_its_middle():
    assert top_half(1, 1, 4) and top_half(2, 1, 4) and not top_half(3, 1, 4)
    assert top_half(1, 2, 4) and not top_half(2, 2, 4)
    assert top_half(1, 1, 2) and not top_half(1, 2, 2)
    assert top_half(1, 1, 3) and not top_half(2, 1, 3)


def test_the_pool_is_split_to_the_kopeck_with_the_remainder_to_first():
    weights = prize_weights([50, 30, 20], None, 10)
    amounts = prize_amounts(10_001, weights, [["a"], ["b"], ["c"], ["d"]])
    assert amounts == {"a": 5_001, "b": 3_000, "c": 2_000, "d": 0}
    assert sum(amounts.values()) == 10_001


def test_a_shared_place_splits_its_places_prizes_equally_rounded_down():
    weights = prize_weights([50, 30, 20], None, 4)
    amounts = prize_amounts(1_001, weights, [["a"], ["b", "c"], ["d"]])
    # 500 (+1 left over) to a; b and c share 300 + 200.
    assert amounts == {"a": 501, "b": 250, "c": 250, "d": 0}


def test_a_prize_table_longer_than_the_field_is_cut_to_it_in_proportion():
    assert prize_weights([50, 30, 20], None, 2) == [Fraction(5, 8), Fraction(3, 8)]


def test_a_paid_top_share_follows_the_curve_and_pays_at_least_one():
    assert prize_weights([], 15, 20) == [Fraction(6, 11), Fraction(3, 11), Fraction(2, 11)]
    assert prize_weights([], 15, 4) == [Fraction(1)]
