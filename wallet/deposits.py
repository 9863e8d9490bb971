"""Deposits through payment providers: start a payment, then take the provider's word for it.

A payment is created (and its player checked) under the lock of the player's wallet; the
provider's notification is handled under the lock of the payment row, and credits the wallet
at most once, keyed by the provider's payment id.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from wallet import limits, services
from wallet.models import Payment
from wallet.money import format_money
from wallet.payments import InvalidNotification, PaymentProvider, get_provider
from wallet.services import WalletError

logger = logging.getLogger(__name__)


class DepositUnavailable(WalletError):
    code = "deposit_unavailable"
    default_message = _("This way of paying is not available.")


class AmountOutOfRange(WalletError):
    code = "amount_out_of_range"


@dataclass(frozen=True)
class Checkout:
    payment: Payment
    url: str


def deposit_start(*, user, amount: int, provider_code: str, site_url: str) -> Checkout:
    """Create a payment of ``amount`` and return where to send the player to pay it."""
    provider = get_provider(provider_code)
    if provider is None:
        raise DepositUnavailable()
    if type(amount) is not int or not settings.DEPOSIT_MIN <= amount <= settings.DEPOSIT_MAX:
        raise AmountOutOfRange(
            _("A deposit must be between %(min)s and %(max)s.")
            % {"min": format_money(settings.DEPOSIT_MIN), "max": format_money(settings.DEPOSIT_MAX)}
        )
    with transaction.atomic():
        services.lock_wallet(user=user)
        limits.check_deposit(user=user, amount=amount)
        now = timezone.now()
        payment = Payment.objects.create(
            user=user,
            provider=provider.code,
            amount=amount,
            created_at=now,
            updated_at=now,
            expires_at=now + timedelta(minutes=settings.PAYMENT_EXPIRY_MINUTES),
        )
    url = provider.checkout_url(payment, site_url=site_url)
    Payment.objects.filter(pk=payment.pk, status=Payment.Status.CREATED).update(
        status=Payment.Status.PENDING, updated_at=timezone.now()
    )
    payment.refresh_from_db()
    return Checkout(payment=payment, url=url)


def notification_receive(
    *, provider_code: str, body: bytes, headers: Mapping[str, str]
) -> HttpResponse:
    """Handle a provider's notification and answer it the way that provider expects.

    Forged or malformed notifications change nothing and are refused. A repeat, a wrong
    amount or currency, or one arriving after the payment expired is answered as received
    (so the provider stops retrying) and changes nothing but the payment's state.
    """
    provider = get_provider(provider_code)
    if provider is None:
        return HttpResponse(status=404)
    try:
        notification = provider.read_notification(body=body, headers=headers)
    except InvalidNotification as error:
        logger.warning("refused a %s notification: %s", provider_code, error)
        return provider.answer(accepted=False, outcome="invalid")
    with transaction.atomic():
        payment = (
            Payment.objects.select_for_update()
            .filter(reference=notification.reference, provider=provider.code)
            .first()
        )
        if payment is None:
            logger.warning("a %s notification for an unknown payment", provider_code)
            return provider.answer(accepted=False, outcome="unknown_payment")
        outcome = _apply(provider, payment, notification)
    if outcome != "credited":
        logger.info("payment %s: notification %s", payment.reference, outcome)
    return provider.answer(accepted=True, outcome=outcome)


def _apply(provider: PaymentProvider, payment: Payment, notification) -> str:
    """Move the locked ``payment`` on by the notification; the outcome names what happened."""
    if payment.status == Payment.Status.SUCCEEDED:
        return "duplicate"
    if payment.status not in Payment.OPEN_STATUSES:
        return f"ignored_{payment.status}"
    now = timezone.now()
    if payment.expires_at <= now:
        _finish(payment, Payment.Status.EXPIRED, now=now)
        return "late"
    if (notification.amount, notification.currency) != (payment.amount, payment.currency):
        _finish(
            payment,
            Payment.Status.FAILED,
            now=now,
            reason=f"notified {notification.amount} {notification.currency}",
        )
        return "amount_mismatch"
    if not notification.succeeded:
        _finish(payment, Payment.Status.FAILED, now=now, reason="declined by the provider")
        return "failed"
    payment.provider_payment_id = notification.provider_payment_id
    try:
        with transaction.atomic():
            payment.transaction = services.deposit(
                user=payment.user,
                amount=payment.amount,
                provider=provider.code,
                idempotency_key=f"deposit:{provider.code}:{notification.provider_payment_id}",
                initiated_by=None,
                memo=notification.provider_payment_id,
            )
            _finish(payment, Payment.Status.SUCCEEDED, now=now)
    except (IntegrityError, services.DuplicateCommand):
        # The provider's payment id already paid another of our payments.
        return "payment_id_reused"
    return "credited"


def _finish(payment: Payment, status: str, *, now, reason: str = "") -> None:
    payment.status = status
    payment.failure_reason = reason
    payment.updated_at = now
    payment.save(
        update_fields=[
            "status",
            "failure_reason",
            "updated_at",
            "provider_payment_id",
            "transaction",
        ]
    )


def payments_expire() -> int:
    """Expire every payment whose provider did not confirm it in time; returns how many."""
    now = timezone.now()
    return Payment.objects.filter(status__in=Payment.OPEN_STATUSES, expires_at__lte=now).update(
        status=Payment.Status.EXPIRED, updated_at=now
    )
