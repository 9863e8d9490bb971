"""Celery tasks: thin callers of the wallet services, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from wallet import deposits


@shared_task(name="wallet.tasks.expire_payments", ignore_result=True)
def expire_payments() -> int:
    """Payments whose provider never confirmed them expire; late notifications are ignored."""
    return deposits.payments_expire()
