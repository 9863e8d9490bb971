"""Reads of the ledger."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils.module_loading import import_string

from wallet.models import (
    NEVER_NEGATIVE,
    Account,
    Entry,
    LedgerTransaction,
    Payment,
    Refund,
    Withdrawal,
)
from wallet.statements import CASHIER_RELATIONS

RECENT_ITEMS = 10


def user_balance(*, user) -> int:
    """The player's wallet balance in minor units; 0 before the first movement."""
    if getattr(user, "pk", None) is None:
        return 0
    balance = (
        Account.objects.filter(kind=Account.Kind.USER, user_id=user.pk)
        .values_list("balance", flat=True)
        .first()
    )
    return balance or 0


def user_statement(*, user) -> QuerySet[Entry]:
    """The player's wallet entries, newest first, each with its transaction and balance after."""
    if getattr(user, "pk", None) is None:
        return Entry.objects.none()
    return (
        Entry.objects.filter(account__kind=Account.Kind.USER, account__user_id=user.pk)
        .select_related("transaction", *CASHIER_RELATIONS)
        .order_by("-id")
    )


def recent_payments(*, user) -> QuerySet[Payment]:
    """The player's latest deposits with their states, newest first."""
    return Payment.objects.filter(user_id=user.pk).order_by("-id")[:RECENT_ITEMS]


def recent_withdrawals(*, user) -> QuerySet[Withdrawal]:
    """The player's latest withdrawal requests with their states, newest first."""
    return Withdrawal.objects.filter(user_id=user.pk).order_by("-id")[:RECENT_ITEMS]


@dataclass(frozen=True)
class LedgerReport:
    checked: dict[str, int]
    findings: list[str]


def ledger_findings() -> LedgerReport:
    """Everything that would mean money was created, lost or paid twice."""
    findings: list[str] = []
    checked: dict[str, int] = {
        "transactions": LedgerTransaction.objects.count(),
        "entries": Entry.objects.count(),
        "accounts": Account.objects.count(),
    }
    unbalanced = (
        LedgerTransaction.objects.annotate(
            total=Coalesce(Sum("entries__amount"), 0), n=Count("entries")
        )
        .filter(~Q(total=0) | Q(n__lt=2))
        .values_list("pk", "total", "n")
    )
    for pk, total, n in unbalanced:
        findings.append(f"transaction {pk} has {n} entries summing to {total}")
    stale = Account.objects.annotate(entries_total=Coalesce(Sum("entries__amount"), 0)).exclude(
        balance=F("entries_total")
    )
    for account in stale:
        findings.append(
            f"account {account.pk} ({account}) caches {account.balance}, entries sum to "
            f"{account.entries_total}"
        )
    for account in Account.objects.filter(kind__in=NEVER_NEGATIVE, balance__lt=0):
        findings.append(f"account {account.pk} ({account}) is negative: {account.balance}")
    checked["payments"] = Payment.objects.count()
    findings += _payment_findings()
    checked["refunds"] = Refund.objects.count()
    findings += _refund_findings()
    checked["withdrawals"] = Withdrawal.objects.count()
    findings += _withdrawal_findings()
    # The apps that post money add their own audits (settings.LEDGER_AUDITS).
    for path in settings.LEDGER_AUDITS:
        report = import_string(path)()
        checked.update(report.checked)
        findings += report.findings
    return LedgerReport(checked=checked, findings=findings)


def _payment_findings() -> list[str]:
    """Every succeeded payment credited its player once with its amount, and every deposit
    from a provider's account belongs to a succeeded payment."""
    findings = []
    succeeded = Payment.objects.filter(status=Payment.Status.SUCCEEDED).annotate(
        credited=Coalesce(
            Sum(
                "transaction__entries__amount",
                filter=Q(
                    transaction__kind=LedgerTransaction.Kind.DEPOSIT,
                    transaction__entries__account__user_id=F("user_id"),
                ),
            ),
            0,
        )
    )
    for payment in succeeded.exclude(credited=F("amount")).order_by("pk"):
        findings.append(
            f"payment {payment.pk} succeeded for {payment.amount}, "
            f"its player was credited {payment.credited}"
        )
    unpaid = LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.DEPOSIT,
        entries__account__kind=Account.Kind.EXTERNAL,
        entries__account__provider__gt="",
        payment__isnull=True,
    ).order_by("pk")
    for pk in unpaid.values_list("pk", flat=True):
        findings.append(f"deposit transaction {pk} from a provider has no succeeded payment")
    return findings


def _player_moved(transaction_field: str) -> Coalesce:
    """What the ledger transaction in a refund's ``transaction_field`` moved in its payment's
    player's wallet (a subquery: two sums over joins would count each other's rows)."""
    moved = (
        Entry.objects.filter(
            transaction_id=OuterRef(transaction_field),
            account__user_id=OuterRef("payment__user_id"),
        )
        .values("transaction_id")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return Coalesce(Subquery(moved), 0)


def _refund_findings() -> list[str]:
    """Every refund took its amount from its payment's player (and a refused one gave it
    back), and no payment is refunded beyond its amount."""
    findings = []
    refunds = Refund.objects.annotate(
        taken=_player_moved("transaction_id"), given_back=_player_moved("return_transaction_id")
    )
    for refund in refunds.order_by("pk"):
        expected_back = refund.amount if refund.status == Refund.Status.FAILED else 0
        if (refund.taken, refund.given_back) != (-refund.amount, expected_back):
            findings.append(
                f"refund {refund.pk} of {refund.amount} ({refund.status}) took "
                f"{-refund.taken} from its player and gave back {refund.given_back}"
            )
    over = (
        Payment.objects.annotate(
            refunded=Coalesce(
                Sum("refunds__amount", filter=~Q(refunds__status=Refund.Status.FAILED)), 0
            )
        )
        .filter(refunded__gt=F("amount"))
        .order_by("pk")
    )
    for payment in over:
        findings.append(f"payment {payment.pk} of {payment.amount} refunded {payment.refunded}")
    return findings


def _withdrawal_findings() -> list[str]:
    """The pending-withdrawals account holds exactly the pending requests."""
    pending = Withdrawal.objects.filter(status=Withdrawal.Status.PENDING).aggregate(
        total=Coalesce(Sum("amount"), 0), n=Count("pk")
    )
    held = (
        Account.objects.filter(kind=Account.Kind.PENDING_PAYOUTS)
        .values_list("balance", flat=True)
        .first()
    ) or 0
    if held != pending["total"]:
        return [
            f"pending withdrawals account holds {held}, "
            f"the {pending['n']} pending requests are {pending['total']}"
        ]
    return []
