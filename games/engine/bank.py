"""Splitting the bank among the places (RULES.md §6)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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


@dataclass(frozen=True)
class Share:
    """One seat's part of the bank: its place (1 = first), the percent it gets and the amount."""

    seat: int
    place: int
    percent: Fraction
    amount: int


class BadPercentages(ValueError):
    """A row of percentages breaks RULES.md §6; ``code`` says how."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def house_commission(bank: int, percent: int | Decimal | Fraction | str) -> int:
    """The house's cut, taken before the split: `percent` of `bank` rounded down to a whole
    unit (RULES.md §6). Raises ValueError on a percent outside 0..100."""
    if type(bank) is not int or bank < 0:
        raise ValueError("bank must be a non-negative int of minor units")
    try:
        exact = Fraction(Decimal(percent))
    except (TypeError, ValueError, ArithmeticError) as error:
        raise ValueError("the commission must be a percentage") from error
    if not 0 <= exact <= 100:
        raise ValueError("the commission must be between 0 and 100 percent")
    return int(bank * exact // 100)


def split_bank(
    bank: int,
    places: Sequence[Sequence[int]],
    percentages: Sequence[int | Decimal | Fraction] | Mapping[int, Sequence[int]],
) -> dict[int, int]:
    """Pay out `bank` (integer minor units, after rake) to the seats by place: {seat: amount}.

    The amounts of ``bank_shares``, in the same order.
    """
    return {share.seat: share.amount for share in bank_shares(bank, places, percentages)}


def bank_shares(
    bank: int,
    places: Sequence[Sequence[int]],
    percentages: Sequence[int | Decimal | Fraction] | Mapping[int, Sequence[int]],
) -> list[Share]:
    """Each seat's share of `bank` (integer minor units, after rake), in place order.

    `places` lists the seats in leaving order, seats that left after the same bout sharing a
    list (`Game.places`). `percentages` is the row for this many players, one entry per place,
    or a table of rows keyed by the number of players. Seats that share a list add up the
    percentages of the places they take together and split the sum equally; they all get the
    place of the first of them. Each share is rounded down; the units left over go one each in
    place order (earlier place first, then lower seat), so the amounts always add up to exactly
    `bank`. `places` may leave out the last places (a durak not yet listed) when their
    percentages are 0. Raises ValueError on bad input.
    """
    if type(bank) is not int or bank < 0:
        raise ValueError("bank must be a non-negative int of minor units")
    groups = _checked_places(places)
    seats = sum(len(group) for group in groups)
    if isinstance(percentages, Mapping):
        if seats not in percentages:
            raise ValueError(f"no percentages for {seats} players")
        percentages = percentages[seats]
    if isinstance(percentages, str | bytes) or not isinstance(percentages, Sequence):
        raise BadPercentages("not_a_row", "percentages must be a list of numbers")
    if len(percentages) < seats:
        raise ValueError(f"percentages must give one value for each of the {seats} places")
    row = check_percentages(percentages)
    if any(seat >= len(row) for group in groups for seat in group):
        raise ValueError(f"seats are numbered 0..{len(row) - 1}")
    if any(row[seats:]):
        raise ValueError("places must list every seat whose place is paid")
    shares: list[Share] = []
    taken = 0
    for group in groups:
        percent = sum(row[taken : taken + len(group)]) / len(group)
        for seat in group:
            # floor: shares are never negative
            shares.append(Share(seat, taken + 1, percent, int(bank * percent / 100)))
        taken += len(group)
    leftover = bank - sum(share.amount for share in shares)
    # Each floored share lost less than one unit, so fewer units are left than seats.
    return [
        replace(share, amount=share.amount + 1) if index < leftover else share
        for index, share in enumerate(shares)
    ]


def check_percentages(row: Sequence[int | float | Decimal | Fraction]) -> list[Fraction]:
    """The row as exact fractions if it is a valid payout row (RULES.md §6): numbers that add
    up to 100, never increase and end in 0. Raises BadPercentages otherwise."""
    if isinstance(row, str | bytes) or not isinstance(row, Sequence) or not row:
        raise BadPercentages("not_a_row", "percentages must be a list of numbers")
    if any(type(value) not in (int, float, Decimal, Fraction) for value in row):
        raise BadPercentages("not_a_row", "percentages are numbers")
    # A float is read as the decimal it prints as (12.5 -> 25/2), never as its binary value.
    exact = [Fraction(str(value)) if type(value) is float else Fraction(value) for value in row]
    if sum(exact) != 100:
        raise BadPercentages("not_100", "percentages must add up to 100")
    if any(later > earlier for earlier, later in itertools.pairwise(exact)):
        raise BadPercentages("increasing", "percentages must not increase")
    if exact[-1] != 0:
        raise BadPercentages("last_not_zero", "the last place gets 0 percent")
    return exact


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
