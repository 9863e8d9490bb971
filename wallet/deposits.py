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
from django.db.models import Q
from django.http import HttpResponse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from durak_site.audit.services import record_staff_action
from wallet import limits, services
from wallet.models import Payment
from wallet.money import format_money
from wallet.payments import (
    InvalidNotification,
    Notification,
    PaymentProvider,
    ProviderUnavailable,
    State,
    api_provider,
    get_provider,
)
from wallet.services import InvalidCommand, WalletError

logger = logging.getLogger(__name__)

# Refunding a payment, and closing the review of one, need this.
PAYMENT_PERMISSION = "wallet.refund_payment"


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
    try:
        url = provider.checkout_url(payment, site_url=site_url)
    except ProviderUnavailable as error:
        logger.warning("could not start payment %s: %s", payment.reference, error)
        Payment.objects.filter(pk=payment.pk).update(
            status=Payment.Status.FAILED,
            failure_reason="the provider did not answer",
            updated_at=timezone.now(),
        )
        raise DepositUnavailable(
            _("The payment service did not answer. Please try again in a minute.")
        ) from error
    Payment.objects.filter(pk=payment.pk, status=Payment.Status.CREATED).update(
        status=Payment.Status.PENDING,
        provider_payment_id=payment.provider_payment_id,
        updated_at=timezone.now(),
    )
    payment.refresh_from_db()
    return Checkout(payment=payment, url=url)


def notification_receive(
    *, provider_code: str, body: bytes, headers: Mapping[str, str], sender: str | None = None
) -> HttpResponse:
    """Handle a provider's notification, sent from the address ``sender``, and answer it the
    way that provider expects.

    Forged or malformed notifications change nothing and are refused, and so are those the
    provider's API cannot confirm now (it sends them again). A repeat, a wrong amount or
    currency, or one for a payment already ended is answered as received (so the provider
    stops retrying) and changes nothing but the payment's state.
    """
    provider = get_provider(provider_code)
    if provider is None:
        return HttpResponse(status=404)
    try:
        notification = provider.read_notification(body=body, headers=headers, sender=sender)
        outcome = payment_update(provider, notification)
    except InvalidNotification as error:
        logger.warning("refused a %s notification: %s", provider_code, error)
        return provider.answer(accepted=False, outcome="invalid")
    except ProviderUnavailable as error:
        logger.warning("could not confirm a %s notification: %s", provider_code, error)
        return provider.answer(accepted=False, outcome="unavailable")
    if outcome is None:
        logger.warning("a %s notification for an unknown payment", provider_code)
        return provider.answer(accepted=False, outcome="unknown_payment")
    return provider.answer(accepted=True, outcome=outcome)


def payment_update(provider: PaymentProvider, notification: Notification) -> str | None:
    """Move our payment on by what its provider says of it; the outcome names what happened,
    None if we have no such payment."""
    with transaction.atomic():
        payment = (
            Payment.objects.select_for_update()
            .filter(reference=notification.reference, provider=provider.code)
            .first()
        )
        if payment is None:
            return None
        outcome = _apply(provider, payment, notification)
    if outcome not in ("credited", "pending"):
        logger.info("payment %s: notification %s", payment.reference, outcome)
    return outcome


def _apply(provider: PaymentProvider, payment: Payment, notification: Notification) -> str:
    """Move the locked ``payment`` on by the notification; the outcome names what happened.

    Money the provider took is never dropped: a payment confirmed after it expired is
    credited, and one that cannot be credited goes to the staff review queue.
    """
    if payment.status == Payment.Status.SUCCEEDED:
        return "duplicate"
    if notification.state == State.PENDING:
        return "pending"
    now = timezone.now()
    if payment.status == Payment.Status.FAILED:
        if notification.succeeded:
            _review(payment, Payment.Review.NOT_CREDITED, now=now, why="ended as failed")
        return "ignored_failed"
    if (notification.amount, notification.currency) != (payment.amount, payment.currency):
        if notification.state == State.CAPTURABLE:
            provider.cancel(payment)  # releases the money held: nothing is taken
        _finish(
            payment,
            Payment.Status.FAILED,
            now=now,
            reason=f"notified {notification.amount} {notification.currency}",
        )
        if notification.succeeded:
            _review(payment, Payment.Review.NOT_CREDITED, now=now, why="another amount")
        return "amount_mismatch"
    if notification.state == State.FAILED:
        _finish(payment, Payment.Status.FAILED, now=now, reason="declined by the provider")
        return "failed"
    late = payment.status == Payment.Status.EXPIRED or payment.expires_at <= now
    refusal = _late_refusal(payment) if late else None
    if notification.state == State.CAPTURABLE:
        if refusal is not None:
            # Only held, not taken yet: released rather than taken past the player's limits.
            provider.cancel(payment)
            _finish(payment, Payment.Status.FAILED, now=now, reason=f"late: {refusal}"[:200])
            return "late_released"
        notification = provider.capture(payment)
        if not notification.succeeded:
            return "capture_pending"
    payment.provider_payment_id = notification.provider_payment_id
    payment.payment_method = notification.payment_method
    payment.card_last4 = notification.card_last4
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
    if refusal is not None:
        _review(payment, Payment.Review.LATE_OVER_LIMITS, now=now, why=refusal)
        return "credited_late_for_review"
    return "credited_late" if late else "credited"


def _late_refusal(payment: Payment) -> str | None:
    """Why the player's limits would have refused ``payment`` now, or None if they allow it.
    Takes the player's wallet lock, as every limit check does."""
    services.lock_wallet(user=payment.user)
    try:
        # In English, like the other failure reasons and the log: it is for staff.
        with translation.override("en"):
            limits.check_deposit(user=payment.user, amount=payment.amount, excluding=payment.pk)
    except WalletError as refusal:
        return refusal.message
    return None


def _review(payment: Payment, review: str, *, now, why: str) -> None:
    """Put ``payment`` in the staff review queue, loudly: the provider has the player's money."""
    Payment.objects.filter(pk=payment.pk).update(review=review, updated_at=now)
    payment.review = review
    logger.error(
        "payment %s of %s (%s %s at %s) needs staff review: %s: %s",
        payment.reference,
        payment.user_id,
        payment.amount,
        payment.currency,
        payment.provider,
        review,
        why,
    )


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
            "payment_method",
            "card_last4",
            "transaction",
        ]
    )


def payment_review_close(*, payment_id: int, staff_user, note: str) -> Payment:
    """Staff have dealt with a payment of the review queue (refunded it, credited it by hand,
    or found it right); recorded in the audit trail."""
    note = (note or "").strip()
    if not note:
        raise InvalidCommand(_("Say what was done about the payment."))
    if staff_user is None or not staff_user.has_perm(PAYMENT_PERMISSION):
        raise services.NotAllowed(_("You may not review payments."))
    with transaction.atomic():
        payment = Payment.objects.select_for_update().get(pk=payment_id)
        if not payment.review or payment.reviewed_at is not None:
            raise InvalidCommand(_("This payment is not waiting for review."))
        payment.reviewed_by = staff_user
        payment.reviewed_at = timezone.now()
        payment.save(update_fields=["reviewed_by", "reviewed_at"])
        record_staff_action(
            staff=staff_user,
            action="wallet.payment_review",
            reason=note,
            target=payment,
            player=payment.user,
            details={"review": payment.review, "amount": payment.amount},
        )
    return payment


def payments_expire() -> int:
    """Expire every payment whose provider did not confirm it in time; returns how many."""
    now = timezone.now()
    return Payment.objects.filter(status__in=Payment.OPEN_STATUSES, expires_at__lte=now).update(
        status=Payment.Status.EXPIRED, updated_at=now
    )


def payments_reconcile(*, limit: int = 500) -> int:
    """Ask the providers with an API about the payments still waiting for them, and apply
    what they say, as a notification would: a notification that never came is not missed.
    Also recent expired payments, since a late payment is still credited. Returns how many
    payments changed."""
    now = timezone.now()
    changed = 0
    waiting = (
        Payment.objects.exclude(provider_payment_id="")
        .filter(
            Q(status__in=Payment.OPEN_STATUSES)
            | Q(
                status=Payment.Status.EXPIRED,
                created_at__gte=now - timedelta(days=settings.PAYMENT_RECONCILE_DAYS),
            )
        )
        .order_by("id")
    )
    for payment in waiting[:limit]:
        provider = api_provider(payment.provider)
        if provider is None:
            continue
        try:
            outcome = payment_update(provider, provider.payment_state(payment))
        except (ProviderUnavailable, InvalidNotification) as error:
            logger.warning("could not reconcile payment %s: %s", payment.reference, error)
            continue
        changed += outcome not in ("pending", "duplicate", "ignored_failed")
    return changed
