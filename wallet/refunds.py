"""Refunds: staff pay a credited deposit back to the player through its provider.

The amount leaves the player's wallet for the provider's external cash when staff ask (so it
cannot be staked meanwhile); the provider is asked after that commits. If it refuses, the
amount returns to the wallet; if it cannot be reached, the refund stays pending and the
reconciliation job asks again with the same idempotence key.
"""

from __future__ import annotations

import logging
import uuid

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from durak_site.audit.services import record_staff_action
from wallet import services
from wallet.deposits import PAYMENT_PERMISSION
from wallet.models import Payment, Refund
from wallet.money import format_money
from wallet.payments import ProviderUnavailable, State, api_provider
from wallet.services import InvalidAmount, InvalidCommand, NotAllowed

logger = logging.getLogger(__name__)


def refundable(payment: Payment) -> int:
    """How much of ``payment`` may still be refunded."""
    if payment.status != Payment.Status.SUCCEEDED:
        return 0
    asked = (
        payment.refunds.exclude(status=Refund.Status.FAILED).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    return payment.amount - asked


def refund_start(
    *, payment_id: int, amount: int, reason: str, staff_user, reference: uuid.UUID | None = None
) -> Refund:
    """Refund ``amount`` of a credited payment to the player; needs ``refund_payment``.

    ``reference`` names the request: asked again with it, the first refund is returned."""
    if staff_user is None or not staff_user.has_perm(PAYMENT_PERMISSION):
        raise NotAllowed(_("You may not refund payments."))
    reason = (reason or "").strip()
    if not reason:
        raise InvalidCommand(_("A reason is required."))
    if type(amount) is not int or amount <= 0:
        raise InvalidAmount()
    reference = reference or uuid.uuid4()
    with transaction.atomic():
        payment = Payment.objects.select_for_update().select_related("user").get(pk=payment_id)
        asked = Refund.objects.filter(reference=reference).first()
        if asked is not None:
            return asked
        if api_provider(payment.provider) is None:
            raise InvalidCommand(_("This payment's provider cannot refund."))
        left = refundable(payment)
        if amount > left:
            raise InvalidAmount(
                _("At most %(amount)s of this payment can be refunded.")
                % {"amount": format_money(left)}
            )
        refund = Refund(
            reference=reference,
            payment=payment,
            amount=amount,
            reason=reason,
            requested_by=staff_user,
        )
        refund.transaction = services.refund(
            user=payment.user,
            amount=amount,
            provider=payment.provider,
            idempotency_key=f"refund:{refund.reference}",
            initiated_by=staff_user,
            memo=reason,
        )
        refund.save()
        record_staff_action(
            staff=staff_user,
            action="wallet.refund",
            reason=reason,
            target=refund,
            player=payment.user,
            details={"amount": amount, "payment": payment.pk},
        )
    return refund_send(refund)


def refund_send(refund: Refund) -> Refund:
    """Ask the provider to pay a pending refund (again: it is idempotent), and settle it by
    its answer."""
    provider = api_provider(refund.payment.provider)
    if provider is None:
        return refund
    try:
        provider_refund_id, state = provider.refund(refund)
    except ProviderUnavailable as error:
        logger.warning("refund %s not sent yet: %s", refund.reference, error)
        return refund
    return _settle(refund.pk, provider_refund_id, state)


def _settle(refund_id: int, provider_refund_id: str, state: str) -> Refund:
    with transaction.atomic():
        refund = Refund.objects.select_for_update().select_related("payment").get(pk=refund_id)
        if refund.status != Refund.Status.PENDING:
            return refund
        refund.provider_refund_id = provider_refund_id
        refund.updated_at = timezone.now()
        if state == State.SUCCEEDED:
            refund.status = Refund.Status.SUCCEEDED
        elif state == State.FAILED:
            refund.status = Refund.Status.FAILED
            refund.return_transaction = services.refund_return(
                user=refund.payment.user,
                amount=refund.amount,
                provider=refund.payment.provider,
                idempotency_key=f"refund-return:{refund.reference}",
                memo=refund.reason,
            )
            logger.warning("refund %s refused by the provider", refund.reference)
        refund.save()
    return refund


def refunds_resend() -> int:
    """Ask again about every pending refund; returns how many were settled."""
    settled = 0
    for refund in Refund.objects.filter(status=Refund.Status.PENDING).select_related("payment"):
        settled += refund_send(refund).status != Refund.Status.PENDING
    return settled
