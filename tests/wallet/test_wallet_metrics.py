"""The money's metrics: committed postings by kind and amount, payments waiting, the nightly
ledger check's findings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone
from prometheus_client import REGISTRY

from wallet import metrics, services, tasks
from wallet.models import Account, LedgerTransaction, Payment

pytestmark = pytest.mark.django_db


def posted(kind: str) -> tuple[float, float]:
    labels = {"kind": kind}
    return (
        REGISTRY.get_sample_value("durak_ledger_postings_total", labels) or 0,
        REGISTRY.get_sample_value("durak_ledger_posted_minor_units_total", labels) or 0,
    )


def collected() -> dict[tuple[str, tuple], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in metrics.PaymentsCollector().collect()
        for sample in family.samples
    }


def test_a_committed_posting_counts_its_kind_and_amount_once(
    make_user, django_capture_on_commit_callbacks
):
    payer, payee = make_user(balance=2_000), make_user()
    before = posted(LedgerTransaction.Kind.ADJUSTMENT)
    command = {
        "kind": LedgerTransaction.Kind.ADJUSTMENT,
        "idempotency_key": "metrics:1",
        "movements": {
            services.user_account(payer): -700,
            services.user_account(payee): 400,
            services.house_account(): 300,
        },
    }
    with django_capture_on_commit_callbacks(execute=True):
        services.post(**command)
    with django_capture_on_commit_callbacks(execute=True):
        services.post(**command)  # a repeat returns the first, and moves nothing
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        services.post(**{**command, "idempotency_key": "metrics:2"})
        transaction.set_rollback(True)  # never committed: never counted

    count, amount = posted(LedgerTransaction.Kind.ADJUSTMENT)
    assert (count - before[0], amount - before[1]) == (1, 700)


def test_open_deposits_and_the_overdue_ones_are_counted_at_the_scrape(make_user):
    user = make_user()
    now = timezone.now()
    for status, expires_in in (
        (Payment.Status.PENDING, timedelta(minutes=-5)),  # should have expired by now
        (Payment.Status.PENDING, timedelta(minutes=30)),
        (Payment.Status.CREATED, timedelta(minutes=30)),
        (Payment.Status.FAILED, timedelta(minutes=-5)),
    ):
        Payment.objects.create(
            user=user,
            provider="test",
            amount=500,
            status=status,
            created_at=now - timedelta(minutes=10),
            expires_at=now + expires_in,
        )

    samples = collected()

    assert samples[("durak_payments_open", (("status", "pending"),))] == 2
    assert samples[("durak_payments_open", (("status", "created"),))] == 1
    assert samples[("durak_payments_overdue", ())] == 1
    assert 600 <= samples[("durak_payment_oldest_open_seconds", (("kind", "deposit"),))] < 700
    assert samples[("durak_payment_oldest_open_seconds", (("kind", "withdrawal"),))] == 0
    assert samples[("durak_payments_last_day", (("status", "failed"),))] == 1
    assert samples[("durak_payments_last_day", (("status", "succeeded"),))] == 0


def test_the_nightly_ledger_check_exports_its_findings(make_user):
    player = make_user(balance=1_000)
    assert not any(name.startswith("durak_ledger_check") for name, _labels in collected())
    assert tasks.ledger_check() == 0
    assert collected()[("durak_ledger_check_findings", ())] == 0

    account = Account.objects.get(user=player)
    # A stale balance that got past the database's check (its trigger off, as in a restore);
    # the test's transaction is rolled back, and the trigger with it.
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            "ALTER TABLE wallet_account DISABLE TRIGGER wallet_account_balance_matches_entries"
        )
        cursor.execute("UPDATE wallet_account SET balance = 999 WHERE id = %s", [account.pk])
    assert tasks.ledger_check() == 1

    samples = collected()
    assert samples[("durak_ledger_check_findings", ())] == 1
    assert (
        abs(samples[("durak_ledger_check_timestamp_seconds", ())] - timezone.now().timestamp()) < 60
    )
