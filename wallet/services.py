"""Money commands. Each one is a single balanced ledger transaction.

Every function takes keyword arguments only, runs in its own ``transaction.atomic()`` (so it
also works inside a caller's transaction), locks the accounts it touches with
``select_for_update()`` in ascending id order, and is idempotent by key: a repeat with the same
key and the same content returns the first transaction and moves nothing; the same key with
other content raises ``DuplicateCommand``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from durak_site.audit.services import record_staff_action
from games.engine import split_bank
from wallet.models import NEVER_NEGATIVE, Account, Entry, LedgerTransaction


class WalletError(Exception):
    """A refused money command; ``code`` is machine-readable, ``message`` is for people."""

    code = "wallet_error"
    default_message = _("The money command was refused.")

    def __init__(self, message: str | None = None) -> None:
        self.message = str(message if message is not None else self.default_message)
        super().__init__(self.message)


class InsufficientFunds(WalletError):
    code = "insufficient_funds"
    default_message = _("Not enough money in the wallet.")


class DuplicateCommand(WalletError):
    code = "duplicate_command"
    default_message = _("This request key was already used for a different command.")


class InvalidAmount(WalletError):
    code = "invalid_amount"
    default_message = _("The amount must be a whole positive number of minor units.")


class InvalidCommand(WalletError):
    code = "invalid_command"
    default_message = _("The money command is malformed.")


@dataclass(frozen=True)
class Settlement:
    transaction: LedgerTransaction
    commission: int
    payouts: dict[int, int]  # seat -> amount (zero payouts included, they get no entry)


# --- public commands -------------------------------------------------------------------------


def deposit(
    *, user, amount: int, idempotency_key: str, initiated_by, memo: str, provider: str = ""
) -> LedgerTransaction:
    """Cash comes in from outside: the provider's external cash -> the player's wallet."""
    _check_positive(amount)
    with transaction.atomic():
        return _post(
            kind=LedgerTransaction.Kind.DEPOSIT,
            idempotency_key=idempotency_key,
            movements={_external_account(provider): -amount, _user_account(user): amount},
            memo=memo,
            initiated_by=initiated_by,
        )


def withdrawal_hold(*, user, amount: int, idempotency_key: str) -> LedgerTransaction:
    """A player asks to withdraw: the amount leaves his wallet for pending withdrawals, so it
    cannot be staked while staff decide."""
    _check_positive(amount)
    with transaction.atomic():
        return _post(
            kind=LedgerTransaction.Kind.WITHDRAWAL_HOLD,
            idempotency_key=idempotency_key,
            movements={_user_account(user): -amount, _pending_payouts_account(): amount},
            initiated_by=user,
        )


def withdrawal_pay(
    *, amount: int, idempotency_key: str, initiated_by, memo: str
) -> LedgerTransaction:
    """An approved withdrawal is paid out: pending withdrawals -> external cash."""
    _check_positive(amount)
    with transaction.atomic():
        return _post(
            kind=LedgerTransaction.Kind.WITHDRAWAL,
            idempotency_key=idempotency_key,
            movements={_pending_payouts_account(): -amount, _external_account(): amount},
            memo=memo,
            initiated_by=initiated_by,
        )


def withdrawal_return(
    *, user, amount: int, idempotency_key: str, initiated_by, memo: str
) -> LedgerTransaction:
    """A rejected or cancelled withdrawal: pending withdrawals -> the player's wallet."""
    _check_positive(amount)
    with transaction.atomic():
        return _post(
            kind=LedgerTransaction.Kind.WITHDRAWAL_RETURN,
            idempotency_key=idempotency_key,
            movements={_pending_payouts_account(): -amount, _user_account(user): amount},
            memo=memo,
            initiated_by=initiated_by,
        )


def stake_hold(*, user, table_id: int, amount: int, idempotency_key: str) -> LedgerTransaction:
    """A player takes a seat: the stake moves from the wallet into the table's bank."""
    _check_positive(amount)
    _check_id(table_id)
    with transaction.atomic():
        return _post(
            kind=LedgerTransaction.Kind.STAKE_HOLD,
            idempotency_key=idempotency_key,
            movements={_user_account(user): -amount, _table_bank(table_id): amount},
            table_id=table_id,
            initiated_by=user,
        )


def stake_release(*, user, table_id: int, amount: int, idempotency_key: str) -> LedgerTransaction:
    """The stake goes back from the table's bank to the wallet (left before start, cancelled)."""
    _check_positive(amount)
    _check_id(table_id)
    with transaction.atomic():
        return _post(
            kind=LedgerTransaction.Kind.STAKE_RELEASE,
            idempotency_key=idempotency_key,
            movements={_table_bank(table_id): -amount, _user_account(user): amount},
            table_id=table_id,
            initiated_by=user,
        )


def bank_settle(
    *,
    table_id: int,
    game_id: int,
    bank: int,
    commission_percent: Decimal,
    places: list[list[int]],
    seat_users: dict[int, int],
    percentages: list[int],
) -> Settlement:
    """Pay out a finished game's bank: the house commission first, the rest by place.

    Idempotent per game (key ``settle:game:<game_id>``).
    """
    _check_positive(bank)
    _check_id(table_id)
    _check_id(game_id)
    commission = _commission(bank, commission_percent)
    try:
        payouts = split_bank(bank - commission, places, percentages)
    except ValueError as error:
        raise InvalidCommand(_("The places or percentages are invalid.")) from error
    if set(seat_users) != set(payouts):
        raise InvalidCommand(_("Every seat in the places needs exactly one player."))
    with transaction.atomic():
        user_accounts = _user_accounts_by_id({seat_users[seat] for seat in payouts})
        movements: dict[Account, int] = {_table_bank(table_id): -bank}
        if commission:
            movements[_house_account()] = commission
        for seat, amount in payouts.items():
            if amount:
                account = user_accounts[seat_users[seat]]
                movements[account] = movements.get(account, 0) + amount
        ledger_transaction = _post(
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
    return Settlement(transaction=ledger_transaction, commission=commission, payouts=payouts)


STAFF_KINDS = (LedgerTransaction.Kind.ADJUSTMENT, LedgerTransaction.Kind.BONUS)


def staff_adjust(
    *,
    user,
    amount: int,
    reason: str,
    staff_user,
    idempotency_key: str,
    kind: str = LedgerTransaction.Kind.ADJUSTMENT,
) -> LedgerTransaction:
    """A staff credit (amount > 0) or debit (amount < 0) of a player's wallet, against the house.

    Labelled as an adjustment or, for a credit, a bonus; never as a deposit, so the reports
    keep money the player brought apart from money staff gave.
    """
    if type(amount) is not int or amount == 0:
        raise InvalidAmount(_("The amount must be a non-zero whole number of minor units."))
    if kind not in STAFF_KINDS or (kind == LedgerTransaction.Kind.BONUS and amount < 0):
        raise InvalidCommand(_("Staff post adjustments, or bonuses as credits."))
    reason = (reason or "").strip()
    if not reason:
        raise InvalidCommand(_("A reason is required."))
    if staff_user is None or not staff_user.is_staff:
        raise InvalidCommand(_("Only staff may adjust a wallet."))
    with transaction.atomic():
        ledger_transaction = _post(
            kind=kind,
            idempotency_key=idempotency_key,
            movements={_user_account(user): amount, _house_account(): -amount},
            memo=reason,
            initiated_by=staff_user,
        )
        record_staff_action(
            staff=staff_user,
            action="wallet.adjust",
            reason=reason,
            target=ledger_transaction,
            player=user,
            details={"amount": amount, "kind": str(kind)},
            idempotency_key=f"wallet.adjust:{ledger_transaction.pk}",
        )
    return ledger_transaction


def lock_wallet(*, user) -> Account:
    """Lock the player's wallet row for the rest of the caller's transaction.

    Checks that must hold when money moves (limits, breaks) run after this, so a concurrent
    command of the same player waits until the movement is committed or rolled back.
    """
    return Account.objects.select_for_update().get(pk=_user_account(user).pk)


# --- posting ---------------------------------------------------------------------------------


def _post(
    *,
    kind: str,
    idempotency_key: str,
    movements: Mapping[Account, int],
    memo: str = "",
    initiated_by=None,
    table_id: int | None = None,
    game_id: int | None = None,
    content: Mapping | None = None,
) -> LedgerTransaction:
    """Write one balanced transaction; the caller holds an open atomic block."""
    if not isinstance(idempotency_key, str) or not idempotency_key.strip():
        raise InvalidCommand(_("A request key is required."))
    if len(idempotency_key) > LedgerTransaction._meta.get_field("idempotency_key").max_length:
        raise InvalidCommand(_("The request key is too long."))
    if not isinstance(memo, str):
        raise InvalidCommand(_("The memo must be text."))
    fingerprint = _fingerprint(
        kind=kind,
        movements={account.pk: amount for account, amount in movements.items()},
        memo=memo,
        initiated_by=getattr(initiated_by, "pk", None),
        table_id=table_id,
        game_id=game_id,
        content=content or {},
    )
    # Lock first: a concurrent twin with the same key waits here, then finds the first result.
    locked = {
        account.pk: account
        for account in Account.objects.select_for_update()
        .filter(pk__in=[account.pk for account in movements])
        .order_by("pk")
    }
    existing = _existing(idempotency_key, fingerprint)
    if existing is not None:
        return existing
    new_balances = {}
    for account, amount in movements.items():
        balance = locked[account.pk].balance + amount
        if balance < 0 and account.kind in NEVER_NEGATIVE:
            if account.kind == Account.Kind.TABLE_BANK:
                raise InsufficientFunds(_("The table bank holds less than that."))
            raise InsufficientFunds()
        new_balances[account.pk] = balance
    try:
        with transaction.atomic():
            ledger_transaction = LedgerTransaction.objects.create(
                kind=kind,
                idempotency_key=idempotency_key,
                fingerprint=fingerprint,
                memo=memo,
                initiated_by=initiated_by,
                table_id=table_id,
                game_id=game_id,
            )
    except IntegrityError:
        # The same key was committed meanwhile by a command touching other accounts.
        existing = _existing(idempotency_key, fingerprint)
        if existing is None:
            raise
        return existing
    Entry.objects.bulk_create(
        Entry(
            transaction=ledger_transaction,
            account_id=account_id,
            amount=amount,
            balance_after=new_balances[account_id],
        )
        for account_id, amount in sorted(
            (account.pk, amount) for account, amount in movements.items()
        )
    )
    for account_id, balance in sorted(new_balances.items()):
        Account.objects.filter(pk=account_id).update(balance=balance)
    return ledger_transaction


def _existing(idempotency_key: str, fingerprint: str) -> LedgerTransaction | None:
    existing = LedgerTransaction.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None and existing.fingerprint != fingerprint:
        raise DuplicateCommand()
    return existing


def _fingerprint(**content) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _commission(bank: int, commission_percent: Decimal) -> int:
    try:
        percent = Fraction(Decimal(commission_percent))
    except (TypeError, ValueError, ArithmeticError) as error:
        raise InvalidCommand(_("The commission must be a percentage.")) from error
    if not 0 <= percent <= 100:
        raise InvalidCommand(_("The commission must be between 0 and 100 percent."))
    return int(bank * percent // 100)  # rounded down to a whole unit (RULES §6)


def _check_positive(amount: object) -> None:
    if type(amount) is not int or amount <= 0:
        raise InvalidAmount()


def _check_id(value: object) -> None:
    if type(value) is not int or value <= 0:
        raise InvalidCommand(_("Invalid table or game id."))


# --- accounts --------------------------------------------------------------------------------


def _account(**lookup) -> Account:
    """Get or create an account race-free: ON CONFLICT DO NOTHING, then read it."""
    account = Account.objects.filter(**lookup).first()
    if account is None:
        Account.objects.bulk_create([Account(**lookup)], ignore_conflicts=True)
        account = Account.objects.get(**lookup)
    return account


def _user_account(user) -> Account:
    if getattr(user, "pk", None) is None:
        raise InvalidCommand(_("Unknown player."))
    return _account(kind=Account.Kind.USER, user_id=user.pk)


def _user_accounts_by_id(user_ids: Sequence[int] | set[int]) -> dict[int, Account]:
    user_model = Account._meta.get_field("user").related_model
    if any(type(user_id) is not int for user_id in user_ids):
        raise InvalidCommand(_("Unknown player."))
    if user_model.objects.filter(pk__in=user_ids).count() != len(user_ids):
        raise InvalidCommand(_("Unknown player."))
    return {user_id: _account(kind=Account.Kind.USER, user_id=user_id) for user_id in user_ids}


def _table_bank(table_id: int) -> Account:
    return _account(kind=Account.Kind.TABLE_BANK, table_id=table_id)


def _house_account() -> Account:
    return _account(kind=Account.Kind.HOUSE)


def _pending_payouts_account() -> Account:
    return _account(kind=Account.Kind.PENDING_PAYOUTS)


def _external_account(provider: str = "") -> Account:
    """External cash of one payment provider; ``""`` is cash moved by hand (staff payouts)."""
    return _account(kind=Account.Kind.EXTERNAL, provider=provider)
