"""A wallet's statement for a period: opening balance, every movement, closing balance.

Dates are local dates of the site's time zone, inclusive. The statement is read from the
ledger in two queries (the balance before the period, the period's entries).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from wallet.models import Account, Entry, LedgerTransaction, Payment
from wallet.payments import provider_label


@dataclass(frozen=True)
class StatementLine:
    at: datetime
    transaction_id: int
    kind: str
    description: str
    amount: int
    balance_after: int


@dataclass(frozen=True)
class Statement:
    account: Account
    since: date
    until: date
    opening_balance: int
    lines: list[StatementLine]

    @property
    def closing_balance(self) -> int:
        return self.lines[-1].balance_after if self.lines else self.opening_balance

    @property
    def credits(self) -> int:
        return sum(line.amount for line in self.lines if line.amount > 0)

    @property
    def debits(self) -> int:
        return sum(line.amount for line in self.lines if line.amount < 0)


# The ledger relations a cashier description reads; select them with the transactions.
CASHIER_RELATIONS = (
    "transaction__payment",
    "transaction__refund__payment",
    "transaction__refund_returned__payment",
    "transaction__withdrawal_held",
    "transaction__withdrawal_settled",
)
# A run of 8 or more digits, spaces or dashes allowed between them: a card or account number.
NUMBER = re.compile(r"\d(?:[ -]?\d){7,}")
CARD_DIGITS = range(13, 20)
REFERENCE_MEMOS = (LedgerTransaction.Kind.DEPOSIT, LedgerTransaction.Kind.WITHDRAWAL)


def _method(payment: Payment) -> str:
    """How the player paid, in words: "card *1234", "SBP"; "" if unknown."""
    if payment.card_last4:
        return _("card *%(last4)s") % {"last4": payment.card_last4}
    names = {"bank_card": _("bank card"), "sbp": _("SBP"), "yoo_money": _("YooMoney wallet")}
    return str(names.get(payment.payment_method, ""))


def _destination(payout_details: str) -> str:
    """Where a withdrawal goes, from the details the player gave, with only the last four
    digits of a card or account number."""
    number = NUMBER.search(payout_details)
    if number is None:
        return _("Withdrawal")
    digits = re.sub(r"\D", "", number.group())
    if len(digits) in CARD_DIGITS:
        return _("Withdrawal to card *%(last4)s") % {"last4": digits[-4:]}
    return _("Withdrawal to account *%(last4)s") % {"last4": digits[-4:]}


def cashier_description(transaction: LedgerTransaction) -> str:
    """A deposit, refund or withdrawal in words, from the provider and payment method stored
    with it ("Deposit via YooKassa, card *1234"); "" for other movements. Reads the relations
    in ``CASHIER_RELATIONS``."""
    kind = transaction.kind
    if kind == LedgerTransaction.Kind.DEPOSIT and hasattr(transaction, "payment"):
        payment = transaction.payment
        words = _("Deposit via %(provider)s") % {"provider": provider_label(payment.provider)}
        method = _method(payment)
        return f"{words}, {method}" if method else words
    if kind == LedgerTransaction.Kind.REFUND and hasattr(transaction, "refund"):
        payment = transaction.refund.payment
        words = _("Refund via %(provider)s") % {"provider": provider_label(payment.provider)}
        method = _method(payment)
        return f"{words}, {method}" if method else words
    if kind == LedgerTransaction.Kind.REFUND_RETURN and hasattr(transaction, "refund_returned"):
        payment = transaction.refund_returned.payment
        return _("Refund refused by %(provider)s") % {"provider": provider_label(payment.provider)}
    withdrawal = getattr(transaction, "withdrawal_held", None) or getattr(
        transaction, "withdrawal_settled", None
    )
    if withdrawal is not None:
        return _destination(withdrawal.payout_details)
    return ""


def _description(entry: Entry) -> str:
    transaction = entry.transaction
    parts = []
    if transaction.game_id:
        parts.append(_("game #%(id)s") % {"id": transaction.game_id})
    elif transaction.table_id:
        parts.append(_("table #%(id)s") % {"id": transaction.table_id})
    cashier = cashier_description(transaction)
    if cashier:
        parts.append(cashier)
    # A deposit's or payout's memo is a raw reference: the words above say it for people.
    if transaction.memo and not (cashier and transaction.kind in REFERENCE_MEMOS):
        parts.append(transaction.memo)
    return ", ".join(parts)


def account_statement_for(*, account: Account, since: date, until: date) -> Statement:
    zone = timezone.get_current_timezone()
    start = datetime.combine(since, time.min, tzinfo=zone)
    end = datetime.combine(until + timedelta(days=1), time.min, tzinfo=zone)
    before = (
        Entry.objects.filter(account=account, transaction__created_at__lt=start)
        .order_by("-id")
        .values_list("balance_after", flat=True)
        .first()
    )
    entries = (
        Entry.objects.filter(
            account=account, transaction__created_at__gte=start, transaction__created_at__lt=end
        )
        .select_related("transaction", *CASHIER_RELATIONS)
        .order_by("id")
    )
    return Statement(
        account=account,
        since=since,
        until=until,
        opening_balance=before or 0,
        lines=[
            StatementLine(
                at=entry.transaction.created_at,
                transaction_id=entry.transaction_id,
                kind=entry.transaction.get_kind_display(),
                description=_description(entry),
                amount=entry.amount,
                balance_after=entry.balance_after,
            )
            for entry in entries
        ],
    )
