"""The money's metrics: postings as they commit, and at each scrape the payments by state and
the last nightly ledger check (``durak_site.ops.metrics`` serves them)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

from django.core.cache import cache
from django.db.models import Count, Min, Q
from django.utils import timezone
from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from wallet.models import Payment, Withdrawal
from wallet.selectors import ledger_findings

POSTINGS = Counter(
    "durak_ledger_postings_total", "Ledger transactions committed, by kind", ["kind"]
)
POSTED = Counter(
    "durak_ledger_posted_minor_units_total",
    "Money moved by committed ledger transactions (the sum of their credits), by kind",
    ["kind"],
)
LEDGER_CHECK_KEY = "wallet:ledger-check"


def posted(kind: str, amount: int) -> None:
    POSTINGS.labels(kind).inc()
    POSTED.labels(kind).inc(amount)


def ledger_check_record() -> int:
    """Audit the books (as ``manage.py ledger_check``) and keep the number of findings with its
    time for the scrapes; returns it."""
    findings = len(ledger_findings().findings)
    cache.set(LEDGER_CHECK_KEY, {"findings": findings, "at": time.time()}, timeout=None)
    return findings


class PaymentsCollector(Collector):
    """Deposits waiting for their provider, withdrawals waiting for staff, both with the age of
    the oldest; the day's deposits by state; the last ledger check. Three statements over
    indexes, and one cache read."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        states = GaugeMetricFamily(
            "durak_payments_open", "Deposits not yet decided, by state", labels=["status"]
        )
        overdue = GaugeMetricFamily(
            "durak_payments_overdue", "Deposits still open after they should have expired"
        )
        oldest = GaugeMetricFamily(
            "durak_payment_oldest_open_seconds",
            "Age of the oldest deposit or withdrawal still waiting",
            labels=["kind"],
        )
        open_rows = (
            Payment.objects.filter(status__in=Payment.OPEN_STATUSES)
            .values_list("status")
            .annotate(
                count=Count("pk"),
                overdue=Count("pk", filter=Q(expires_at__lt=now)),
                oldest=Min("created_at"),
            )
        )
        counted = dict.fromkeys(Payment.OPEN_STATUSES, 0)
        overdue_count, oldest_deposit = 0, None
        for status, count, late, first in open_rows:
            counted[status] = count
            overdue_count += late
            oldest_deposit = first if oldest_deposit is None else min(oldest_deposit, first)
        for status, count in counted.items():
            states.add_metric([str(status)], count)
        overdue.add_metric([], overdue_count)
        withdrawals = Withdrawal.objects.filter(status=Withdrawal.Status.PENDING).aggregate(
            count=Count("pk"), oldest=Min("created_at")
        )
        for kind, first in (("deposit", oldest_deposit), ("withdrawal", withdrawals["oldest"])):
            oldest.add_metric([kind], (now - first).total_seconds() if first else 0)
        yield states
        yield overdue
        yield oldest
        yield GaugeMetricFamily(
            "durak_withdrawals_pending", "Withdrawals waiting for staff", value=withdrawals["count"]
        )
        day = GaugeMetricFamily(
            "durak_payments_last_day",
            "Deposits begun in the last 24 hours, by state",
            labels=["status"],
        )
        begun = dict(
            Payment.objects.filter(created_at__gte=now - timedelta(days=1))
            .values_list("status")
            .annotate(count=Count("pk"))
        )
        for status in Payment.Status.values:
            day.add_metric([status], begun.get(status, 0))
        yield day
        yield from _ledger_check()


def _ledger_check() -> Iterator[Metric]:
    last = cache.get(LEDGER_CHECK_KEY)
    if last is None:  # not run since the cache was emptied: nothing to report yet
        return
    yield GaugeMetricFamily(
        "durak_ledger_check_findings", "Findings of the last ledger check", value=last["findings"]
    )
    yield GaugeMetricFamily(
        "durak_ledger_check_timestamp_seconds",
        "When the last ledger check ran",
        value=last["at"],
    )
