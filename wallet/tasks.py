"""Celery tasks: thin callers of the wallet services, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from wallet import deposits, metrics, refunds, withdrawals


@shared_task(name="wallet.tasks.expire_payments", ignore_result=True)
def expire_payments() -> int:
    """Payments whose provider never confirmed them expire (a late confirmation still counts)."""
    return deposits.payments_expire()


@shared_task(name="wallet.tasks.reconcile_payments", ignore_result=True)
def reconcile_payments() -> int:
    """Ask the providers about payments and refunds still waiting for them."""
    return deposits.payments_reconcile() + refunds.refunds_resend()


@shared_task(name="wallet.tasks.notify_withdrawal_paid", ignore_result=True)
def notify_withdrawal_paid(withdrawal_id: int) -> int:
    """Tell the player's devices that his withdrawal was paid."""
    return withdrawals.withdrawal_paid_notify(withdrawal_id=withdrawal_id)


@shared_task(name="wallet.tasks.ledger_check", ignore_result=True)
def ledger_check() -> int:
    """The nightly audit of the books; its findings become a metric that alerts."""
    return metrics.ledger_check_record()
