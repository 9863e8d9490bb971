"""Splitting the bank among the places (RULES.md §6)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

# Percent of the distributed bank per place, by number of players (RULES.md §6).
DEFAULT_PERCENTAGES: dict[int, tuple[int, ...]] = {
    2: (100, 0),
    3: (80, 20, 0),
    4: (60, 30, 10, 0),
    5: (50, 30, 15, 5, 0),
    6: (40, 30, 15, 10, 5, 0),
}


def split_bank(
    bank: int,
    places: Sequence[Sequence[int]],
    percentages: Sequence[int | Decimal | Fraction] | Mapping[int, Sequence[int]],
) -> dict[int, int]:
    """Pay out `bank` (integer minor units, after rake) to the seats by place.

    `places` lists the seats in leaving order, seats that left after the same bout sharing a
    list (`Game.places`). `percentages` is the row for this many players, one entry per place,
    or a table of rows keyed by the number of players. Seats that share a list add up the
    percentages of the places they take together and split the sum equally. Each share is
    rounded down; the units left over go one each in place order (earlier place first, then
    lower seat), so the payouts always add up to exactly `bank`. `places` may leave out the
    last places (a durak not yet listed) when their percentages are 0. Raises ValueError on bad
    input.
    """
    if type(bank) is not int or bank < 0:
        raise ValueError("bank must be a non-negative int of minor units")
    groups = _checked_places(places)
    seats = sum(len(group) for group in groups)
    if isinstance(percentages, Mapping):
        if seats not in percentages:
            raise ValueError(f"no percentages for {seats} players")
        percentages = percentages[seats]
    row = _checked_row(percentages, seats)
    if any(seat >= len(row) for group in groups for seat in group):
        raise ValueError(f"seats are numbered 0..{len(row) - 1}")
    if any(row[seats:]):
        raise ValueError("places must list every seat whose place is paid")
    payouts: dict[int, int] = {}
    taken = 0
    for group in groups:
        pooled = sum(row[taken : taken + len(group)])
        taken += len(group)
        share = bank * pooled / (100 * len(group))
        for seat in group:
            payouts[seat] = int(share)  # floor: shares are never negative
    leftover = bank - sum(payouts.values())
    # Each floored share lost less than one unit, so fewer units are left than seats.
    for seat in list(payouts)[:leftover]:
        payouts[seat] += 1
    return payouts


def _checked_places(places: object) -> list[list[int]]:
    if isinstance(places, str | bytes) or not isinstance(places, Sequence) or not places:
        raise ValueError("places must be a non-empty list of lists of seats")
    groups = []
    for group in places:
        if isinstance(group, str | bytes) or not isinstance(group, Sequence) or not group:
            raise ValueError("each place is a non-empty list of seats")
        if any(type(seat) is not int for seat in group):
            raise ValueError("seats are ints")
        groups.append(sorted(group))
    seats = [seat for group in groups for seat in group]
    if len(set(seats)) != len(seats) or min(seats) < 0:
        raise ValueError("places must name each seat (a non-negative int) once")
    return groups


def _checked_row(row: object, seats: int) -> list[Fraction]:
    if isinstance(row, str | bytes) or not isinstance(row, Sequence) or len(row) < seats:
        raise ValueError(f"percentages must give one value for each of the {seats} places")
    if any(type(value) not in (int, float, Decimal, Fraction) for value in row):
        raise ValueError("percentages are numbers")
    # A float is read as the decimal it prints as (12.5 -> 25/2), never as its binary value.
    exact = [Fraction(str(value)) if type(value) is float else Fraction(value) for value in row]
    if sum(exact) != 100:
        raise ValueError("percentages must add up to 100")
    if exact[-1] != 0 or any(later > earlier for earlier, later in itertools.pairwise(exact)):
        raise ValueError("percentages must not increase and must end in 0")
    return exact
