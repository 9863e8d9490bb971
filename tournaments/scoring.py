"""The arithmetic of tournaments, pure: points by exit place, streaks, prize tables and the
split of a prize pool."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from fractions import Fraction

from tournaments.models import POINT_UNITS


def place_points(position: int, players: int) -> int:
    """The points (in POINT_UNITS) of the `position`-th player out of a game of `players`:
    the last holds nothing, each place above it doubles (4/2/1/0 at four)."""
    if position >= players:
        return 0
    return POINT_UNITS * 2 ** (players - 1 - position)


def game_points(groups: Sequence[int], players: int) -> list[tuple[int, int]]:
    """For the exit groups of a game (their sizes, in exit order): each group's shared place
    and the points each of its players gets, their places' points shared equally."""
    result, position = [], 1
    for size in groups:
        total = sum(place_points(p, players) for p in range(position, position + size))
        result.append((position, total // size))  # POINT_UNITS divides by every table size
        position += size
    return result


def top_half(place: int, size: int, players: int) -> bool:
    """Whether a place shared by `size` players (its first position `place`) is in the top
    half of a game: its middle position is at most half the players."""
    return 2 * place + size - 1 <= players


def prize_weights(
    percentages: Sequence[int], top_percent: int | None, entrants: int
) -> list[Fraction]:
    """Each paid place's share of the pool. A prize table longer than the field is cut to it
    and the shares kept in proportion; a paid top share pays the best `top_percent` % (at
    least one) on the curve 1, 1/2, 1/3 …"""
    if percentages:
        used = [Fraction(p) for p in percentages[:entrants]]
    else:
        paid = max(1, entrants * (top_percent or 0) // 100)
        used = [Fraction(1, place) for place in range(1, min(paid, entrants) + 1)]
    total = sum(used)
    return [share / total for share in used] if total else []


def prize_amounts(
    pool: int, weights: Sequence[Fraction], ranking: Sequence[Sequence[Hashable]]
) -> dict[Hashable, int]:
    """Split `pool` by places: `ranking` is the players in groups sharing a place, best first.
    Each place's amount is rounded down to a kopeck, a shared place's amounts are split
    equally (rounded down), and whatever is left goes to the first player of the ranking."""
    amounts: dict[Hashable, int] = {}
    position = 0
    for group in ranking:
        places = range(position, min(position + len(group), len(weights)))
        total = sum(math.floor(pool * weights[p]) for p in places)
        for player in group:
            amounts[player] = total // len(group)
        position += len(group)
    if ranking and pool:
        amounts[ranking[0][0]] += pool - sum(amounts.values())
    return amounts
