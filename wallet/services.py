"""Money commands. Each one is a single balanced ledger transaction.

The wallet knows no game: ``post`` is the generic command the other apps build theirs on
(the games pay out a bank with it), with the accounts it moves money between.

Every function takes keyword arguments only, runs in a transaction (its own, or the caller's:
a refusal leaves the caller's as it was), locks the accounts it touches with
``select_for_update()`` in ascending id order, and is idempotent by key: a repeat with the same
key and the same content returns the first transaction and moves nothing; the same key with
other content raises ``DuplicateCommand``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from contextlib import nullcontext

from django.db import connection, transaction
from django.utils.translation import gettext_lazy as _

from durak_site.audit.services import record_staff_action
from wallet import metrics, persistence
from wallet.models import NEVER_NEGATIVE, Account, LedgerTransaction


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


class NotAllowed(WalletError):
    code = "not_allowed"
    default_message = _("You may not credit or debit wallets.")


# --- public commands -------------------------------------------------------------------------


def deposit(
    *, user, amount: int, idempotency_key: str, initiated_by, memo: str, provider: str = ""
) -> LedgerTransaction:
    """Cash comes in from outside: the provider's external cash -> the player's wallet."""
    _check_positive(amount)
    return post(
        kind=LedgerTransaction.Kind.DEPOSIT,
        idempotency_key=idempotency_key,
        movements={external_account(provider): -amount, user_account(user): amount},
        memo=memo,
        initiated_by=initiated_by,
    )


def refund(
    *, user, amount: int, provider: str, idempotency_key: str, initiated_by, memo: str
) -> LedgerTransaction:
    """A deposit is paid back: the player's wallet -> the provider's external cash."""
    _check_positive(amount)
    return post(
        kind=LedgerTransaction.Kind.REFUND,
        idempotency_key=idempotency_key,
        movements={user_account(user): -amount, external_account(provider): amount},
        memo=memo,
        initiated_by=initiated_by,
    )


def refund_return(
    *, user, amount: int, provider: str, idempotency_key: str, memo: str
) -> LedgerTransaction:
    """The provider refused a refund: the amount goes back into the player's wallet."""
    _check_positive(amount)
    return post(
        kind=LedgerTransaction.Kind.REFUND_RETURN,
        idempotency_key=idempotency_key,
        movements={external_account(provider): -amount, user_account(user): amount},
        memo=memo,
    )


def withdrawal_hold(*, user, amount: int, idempotency_key: str) -> LedgerTransaction:
    """A player asks to withdraw: the amount leaves his wallet for pending withdrawals, so it
    cannot be staked while staff decide."""
    _check_positive(amount)
    return post(
        kind=LedgerTransaction.Kind.WITHDRAWAL_HOLD,
        idempotency_key=idempotency_key,
        movements={user_account(user): -amount, pending_payouts_account(): amount},
        initiated_by=user,
    )


def withdrawal_pay(
    *, amount: int, idempotency_key: str, initiated_by, memo: str
) -> LedgerTransaction:
    """An approved withdrawal is paid out: pending withdrawals -> external cash."""
    _check_positive(amount)
    return post(
        kind=LedgerTransaction.Kind.WITHDRAWAL,
        idempotency_key=idempotency_key,
        movements={pending_payouts_account(): -amount, external_account(): amount},
        memo=memo,
        initiated_by=initiated_by,
    )


def withdrawal_return(
    *, user, amount: int, idempotency_key: str, initiated_by, memo: str
) -> LedgerTransaction:
    """A rejected or cancelled withdrawal: pending withdrawals -> the player's wallet."""
    _check_positive(amount)
    return post(
        kind=LedgerTransaction.Kind.WITHDRAWAL_RETURN,
        idempotency_key=idempotency_key,
        movements={pending_payouts_account(): -amount, user_account(user): amount},
        memo=memo,
        initiated_by=initiated_by,
    )


def stake_hold(
    *, user, table_id: int, amount: int, idempotency_key: str, wallet: Account | None = None
) -> LedgerTransaction:
    """A player takes a seat: the stake moves from the wallet into the table's bank.

    `wallet`: the player's wallet, when the caller has locked it already (``lock_wallet``).
    """
    _check_positive(amount)
    _check_id(table_id)
    if wallet is None:
        wallet = user_account(user)
    elif wallet.kind != Account.Kind.USER or wallet.user_id != _player_id(user):
        raise InvalidCommand(_("Unknown player."))
    return post(
        kind=LedgerTransaction.Kind.STAKE_HOLD,
        idempotency_key=idempotency_key,
        movements={wallet: -amount, table_bank(table_id): amount},
        table_id=table_id,
        initiated_by=user,
    )


def stake_release(*, user, table_id: int, amount: int, idempotency_key: str) -> LedgerTransaction:
    """The stake goes back from the table's bank to the wallet (left before start, cancelled)."""
    _check_positive(amount)
    _check_id(table_id)
    return post(
        kind=LedgerTransaction.Kind.STAKE_RELEASE,
        idempotency_key=idempotency_key,
        movements={table_bank(table_id): -amount, user_account(user): amount},
        table_id=table_id,
        initiated_by=user,
    )


STAFF_KINDS = (LedgerTransaction.Kind.ADJUSTMENT, LedgerTransaction.Kind.BONUS)


def may_adjust(staff_user) -> bool:
    """Whether ``staff_user`` may credit or debit players' wallets."""
    return (
        staff_user is not None
        and staff_user.is_staff
        and staff_user.has_perm("wallet.adjust_balance")
    )


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
    keep money the player brought apart from money staff gave. Needs the ``adjust_balance``
    permission (``NotAllowed`` otherwise), whoever calls.
    """
    if type(amount) is not int or amount == 0:
        raise InvalidAmount(_("The amount must be a non-zero whole number of minor units."))
    if kind not in STAFF_KINDS or (kind == LedgerTransaction.Kind.BONUS and amount < 0):
        raise InvalidCommand(_("Staff post adjustments, or bonuses as credits."))
    reason = (reason or "").strip()
    if not reason:
        raise InvalidCommand(_("A reason is required."))
    if not may_adjust(staff_user):
        raise NotAllowed()
    with transaction.atomic():
        ledger_transaction = post(
            kind=kind,
            idempotency_key=idempotency_key,
            movements={user_account(user): amount, house_account(): -amount},
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
    user_id = _player_id(user)
    wallet = (
        Account.objects.select_for_update().filter(kind=Account.Kind.USER, user_id=user_id).first()
    )
    if wallet is None:  # his first money command: the wallet is made, then locked
        wallet = Account.objects.select_for_update().get(pk=user_account(user).pk)
    return wallet


# --- posting ---------------------------------------------------------------------------------


def post(
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
    """Post one balanced transaction of several movements: the money command of the other apps.

    ``movements`` gives each account (see the account functions below) its signed amount in
    whole minor units; the amounts are not zero and add up to zero. ``table_id`` and
    ``game_id`` say what the money moved for. ``content`` is whatever else, beyond the
    movements, makes a repeat with the same key the same command.
    """
    if kind not in LedgerTransaction.Kind.values:
        raise InvalidCommand()
    if len(movements) < 2 or not all(isinstance(account, Account) for account in movements):
        raise InvalidCommand()
    if any(type(amount) is not int or amount == 0 for amount in movements.values()):
        raise InvalidAmount()
    if sum(movements.values()) != 0:
        raise InvalidCommand()
    for reference in (table_id, game_id):
        if reference is not None:
            _check_id(reference)
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
    # Everything is checked before the first write, so a refusal leaves a caller's transaction
    # as it was and needs no savepoint of its own (two statements a posting).
    with nullcontext() if connection.in_atomic_block else transaction.atomic():
        # Lock first: a concurrent twin with the same key waits here, then finds the first result.
        balances = persistence.balances_lock([account.pk for account in movements])
        new_balances = {}
        for account, amount in movements.items():
            balance = balances[account.pk] + amount
            if balance < 0 and account.kind in NEVER_NEGATIVE:
                # A repeat of a command that went through returns it, whatever the balances now.
                taken = LedgerTransaction.objects.filter(idempotency_key=idempotency_key).first()
                if taken is not None:
                    return _repeated(taken, fingerprint)
                if account.kind == Account.Kind.TABLE_BANK:
                    raise InsufficientFunds(_("The table bank holds less than that."))
                raise InsufficientFunds()
            new_balances[account.pk] = balance
        ledger_transaction = LedgerTransaction(
            kind=kind,
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            memo=memo,
            initiated_by=initiated_by,
            table_id=table_id,
            game_id=game_id,
        )
        if not persistence.transaction_insert_unless_taken(ledger_transaction):
            # The key was used before, or committed meanwhile by a command on other accounts.
            taken = LedgerTransaction.objects.get(idempotency_key=idempotency_key)
            return _repeated(taken, fingerprint)
        persistence.entries_write(ledger_transaction, movements, new_balances)
        moved = sum(amount for amount in movements.values() if amount > 0)
        transaction.on_commit(lambda: metrics.posted(kind, moved))
        return ledger_transaction


def _repeated(taken: LedgerTransaction, fingerprint: str) -> LedgerTransaction:
    """The transaction that took the key, if this command repeats it; DuplicateCommand if the
    key was taken by another command."""
    if taken.fingerprint != fingerprint:
        raise DuplicateCommand()
    return taken


def _fingerprint(**content) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _check_positive(amount: object) -> None:
    if type(amount) is not int or amount <= 0:
        raise InvalidAmount()


def _check_id(value: object) -> None:
    if type(value) is not int or value <= 0:
        raise InvalidCommand(_("Invalid table or game id."))


# --- accounts: created on first use, for ``post`` ----------------------------------------------


def _account(**lookup) -> Account:
    """Get or create an account race-free: ON CONFLICT DO NOTHING, then read it."""
    account = Account.objects.filter(**lookup).first()
    if account is None:
        Account.objects.bulk_create([Account(**lookup)], ignore_conflicts=True)
        account = Account.objects.get(**lookup)
    return account


def _player_id(user) -> int:
    """The id of a stored player; InvalidCommand for anything else."""
    if getattr(user, "pk", None) is None:
        raise InvalidCommand(_("Unknown player."))
    return user.pk


def user_account(user) -> Account:
    """The player's wallet."""
    return _account(kind=Account.Kind.USER, user_id=_player_id(user))


def user_accounts(user_ids: Sequence[int] | set[int]) -> dict[int, Account]:
    """The wallets of these players by user id; InvalidCommand if one of them does not exist."""
    if any(type(user_id) is not int for user_id in user_ids):
        raise InvalidCommand(_("Unknown player."))
    wanted = set(user_ids)
    # One statement for the players who have a wallet already: a wallet's player exists.
    wallets = {
        wallet.user_id: wallet
        for wallet in Account.objects.filter(kind=Account.Kind.USER, user_id__in=wanted)
    }
    missing = wanted - wallets.keys()
    user_model = Account._meta.get_field("user").related_model
    if missing and user_model.objects.filter(pk__in=missing).count() != len(missing):
        raise InvalidCommand(_("Unknown player."))
    for user_id in missing:
        wallets[user_id] = _account(kind=Account.Kind.USER, user_id=user_id)
    return wallets


def table_bank(table_id: int) -> Account:
    """Where the stakes of a table's seated players are held."""
    return _account(kind=Account.Kind.TABLE_BANK, table_id=table_id)


def tournament_pool(tournament_id: int) -> Account:
    """Where a tournament's buy-ins and fees are held until its prizes are paid."""
    _check_id(tournament_id)
    return _account(kind=Account.Kind.TOURNAMENT_POOL, tournament_id=tournament_id)


def house_account() -> Account:
    """The house: commissions in, staff credits out."""
    return _account(kind=Account.Kind.HOUSE)


def pending_payouts_account() -> Account:
    """Withdrawals asked for and not yet paid out or returned."""
    return _account(kind=Account.Kind.PENDING_PAYOUTS)


def external_account(provider: str = "") -> Account:
    """External cash of one payment provider; ``""`` is cash moved by hand (staff payouts)."""
    return _account(kind=Account.Kind.EXTERNAL, provider=provider)
