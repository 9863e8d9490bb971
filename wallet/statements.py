"""A wallet's statement for a period: opening balance, every movement, closing balance.

Dates are local dates of the site's time zone, inclusive. The statement is read from the
ledger in two queries (the balance before the period, the period's entries).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from wallet.models import Account, Entry


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


def _description(entry: Entry) -> str:
    transaction = entry.transaction
    parts = []
    if transaction.game_id:
        parts.append(_("game #%(id)s") % {"id": transaction.game_id})
    elif transaction.table_id:
        parts.append(_("table #%(id)s") % {"id": transaction.table_id})
    if transaction.memo:
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
        .select_related("transaction")
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
