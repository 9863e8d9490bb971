"""The bank of a finished game: the house commission first, the rest by place (RULES.md §6),
paid out of the table's bank in one ledger posting."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from games.engine import Share, bank_shares, house_commission
from wallet import services as wallet_services
from wallet.models import Account, LedgerTransaction
from wallet.services import InvalidCommand


@dataclass(frozen=True)
class Settlement:
    transaction: LedgerTransaction
    commission: int
    shares: list[Share]  # every seat in place order; a zero amount gets no ledger entry

    @property
    def payouts(self) -> dict[int, int]:
        return {share.seat: share.amount for share in self.shares}


def bank_settle(
    *,
    table_id: int,
    game_id: int,
    bank: int,
    commission_percent: Decimal,
    places: Sequence[Sequence[int]],
    seat_users: Mapping[int, int],
    percentages: Sequence[int],
) -> Settlement:
    """Pay out a finished game's bank to the seats' players; idempotent per game.

    A repeat with the same content returns the first posting; other content for the same game
    raises DuplicateCommand, and malformed input a WalletError, before anything moves.
    """
    try:
        commission = house_commission(bank, commission_percent)
        shares = bank_shares(bank - commission, places, percentages)
    except ValueError as error:
        raise InvalidCommand() from error
    if set(seat_users) != {share.seat for share in shares}:
        raise InvalidCommand()
    wallets = wallet_services.user_accounts({seat_users[share.seat] for share in shares})
    movements: dict[Account, int] = {wallet_services.table_bank(table_id): -bank}
    if commission:
        movements[wallet_services.house_account()] = commission
    for share in shares:
        if share.amount:
            wallet = wallets[seat_users[share.seat]]
            movements[wallet] = movements.get(wallet, 0) + share.amount
    posting = wallet_services.post(
        kind=LedgerTransaction.Kind.BANK_SETTLE,
        idempotency_key=f"settle:game:{game_id}",
        movements=movements,
        table_id=table_id,
        game_id=game_id,
        # What makes a repeat the same settlement, beyond the resulting movements.
        content={
            "places": [sorted(group) for group in places],
            "seat_users": {str(seat): seat_users[seat] for seat in sorted(seat_users)},
            "percentages": [str(value) for value in percentages],
            "commission_percent": str(Decimal(commission_percent).normalize()),
        },
    )
    return Settlement(transaction=posting, commission=commission, shares=shares)
