"""YooKassa (ЮKassa) through its official SDK.

A payment is created with a redirect confirmation and ``capture: false``: the player pays on
YooKassa's page, YooKassa holds the money and notifies ``payment.waiting_for_capture``, and we
capture it (or cancel it, releasing the money, if it is not what we asked for). A notification
is never believed: only the payment id is read from its body, and the payment's state is
fetched from the API. With ``YOOKASSA_TRUSTED_SENDERS_ONLY`` notifications are accepted only
from the addresses YooKassa documents (the SDK's list).
"""

from __future__ import annotations

import ipaddress
import json
import uuid
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from requests import RequestException
from yookassa import Configuration
from yookassa import Payment as ApiPayment
from yookassa import Refund as ApiRefund
from yookassa.domain.common import SecurityHelper
from yookassa.domain.exceptions import ApiError

from wallet.models import Payment, Refund
from wallet.money import major_units
from wallet.payments import InvalidNotification, Notification, ProviderUnavailable, State

MAX_BODY_BYTES = 16_384
API_STATES = {
    "succeeded": State.SUCCEEDED,
    "canceled": State.FAILED,
    "waiting_for_capture": State.CAPTURABLE,
    "pending": State.PENDING,
}
REFUND_STATES = {"succeeded": State.SUCCEEDED, "canceled": State.FAILED, "pending": State.PENDING}
CHECKOUT_ORIGIN = "https://yoomoney.ru"


def _amount(value: str | Decimal) -> int:
    """YooKassa's amount ("1500.00") as integer minor units."""
    try:
        minor = Decimal(str(value)) * 100
    except InvalidOperation as error:
        raise ProviderUnavailable(f"bad amount {value!r}") from error
    if minor != minor.to_integral_value():
        raise ProviderUnavailable(f"bad amount {value!r}")
    return int(minor)


def _api_amount(amount: int, currency: str) -> dict[str, str]:
    return {"value": str(major_units(amount)), "currency": currency}


class YooKassaProvider:
    code = "yookassa"
    label = _("YooKassa")

    @staticmethod
    def configured() -> bool:
        return bool(settings.YOOKASSA_SHOP_ID and settings.YOOKASSA_SECRET_KEY)

    @staticmethod
    def _call(method, *args, **kwargs):
        """One SDK call with this installation's credentials and API address."""
        Configuration.configure(
            settings.YOOKASSA_SHOP_ID,
            settings.YOOKASSA_SECRET_KEY,
            api_url=settings.YOOKASSA_API_URL,
        )
        try:
            return method(*args, **kwargs)
        # The SDK raises ApiError subclasses for error answers, and AttributeError when the
        # connection itself fails (it reads the missing response); both mean "try again later".
        except (ApiError, RequestException, AttributeError) as error:
            raise ProviderUnavailable(f"{type(error).__name__}: {error}") from error

    # --- checkout and notifications ----------------------------------------------------------

    def checkout_url(self, payment: Payment, *, site_url: str) -> str:
        created = self._call(
            ApiPayment.create,
            {
                "amount": _api_amount(payment.amount, payment.currency),
                "capture": False,
                "confirmation": {
                    "type": "redirect",
                    "return_url": site_url + reverse("deposit_status", args=[payment.reference]),
                },
                "description": str(_("Deposit to the wallet")),
                "metadata": {"reference": str(payment.reference)},
            },
            str(payment.reference),
        )
        payment.provider_payment_id = created.id
        return created.confirmation.confirmation_url

    def checkout_origin(self) -> str:
        return CHECKOUT_ORIGIN

    def read_notification(
        self, *, body: bytes, headers: Mapping[str, str], sender: str | None
    ) -> Notification:
        if settings.YOOKASSA_TRUSTED_SENDERS_ONLY and not self._trusted(sender):
            raise InvalidNotification(f"sender {sender} is not one of YooKassa's addresses")
        if len(body) > MAX_BODY_BYTES:
            raise InvalidNotification("body too large")
        try:
            data = json.loads(body)
            event, payment_id = data["event"], data["object"]["id"]
        except (ValueError, UnicodeDecodeError, TypeError, KeyError) as error:
            raise InvalidNotification("not a YooKassa notification") from error
        if not isinstance(event, str) or not event.startswith("payment."):
            raise InvalidNotification(f"not about a payment: {event!r}")
        if not isinstance(payment_id, str) or not 0 < len(payment_id) <= 64:
            raise InvalidNotification("bad payment id")
        # The body only says which payment to look at; its state comes from the API.
        return self._state_of(payment_id)

    @staticmethod
    def _trusted(sender: str | None) -> bool:
        try:
            ipaddress.ip_address(sender)
        except ValueError:
            return False
        return SecurityHelper().is_ip_trusted(sender)

    def answer(self, *, accepted: bool, outcome: str) -> HttpResponse:
        # YooKassa retries until it gets a 200; the body is not read.
        return HttpResponse(outcome, status=200 if accepted else 400, content_type="text/plain")

    # --- the API -----------------------------------------------------------------------------

    def payment_state(self, payment: Payment) -> Notification:
        return self._state_of(payment.provider_payment_id)

    def capture(self, payment: Payment) -> Notification:
        captured = self._call(
            ApiPayment.capture,
            payment.provider_payment_id,
            {"amount": _api_amount(payment.amount, payment.currency)},
            f"capture:{payment.reference}",
        )
        return self._notification(captured)

    def cancel(self, payment: Payment) -> Notification:
        cancelled = self._call(
            ApiPayment.cancel, payment.provider_payment_id, f"cancel:{payment.reference}"
        )
        return self._notification(cancelled)

    def refund(self, refund: Refund) -> tuple[str, str]:
        if refund.provider_refund_id:  # asked before: its state, not a second refund
            answer = self._call(ApiRefund.find_one, refund.provider_refund_id)
            return answer.id, REFUND_STATES.get(answer.status, State.PENDING)
        answer = self._call(
            ApiRefund.create,
            {
                "payment_id": refund.payment.provider_payment_id,
                "amount": _api_amount(refund.amount, refund.payment.currency),
                "description": refund.reason[:250],
            },
            str(refund.reference),
        )
        return answer.id, REFUND_STATES.get(answer.status, State.PENDING)

    def _state_of(self, payment_id: str) -> Notification:
        return self._notification(self._call(ApiPayment.find_one, payment_id))

    @staticmethod
    def _notification(api_payment) -> Notification:
        try:
            reference = uuid.UUID(str((api_payment.metadata or {})["reference"]))
        except (KeyError, ValueError) as error:
            raise InvalidNotification("a payment this site did not create") from error
        method = api_payment.payment_method
        card = getattr(method, "card", None) if method is not None else None
        return Notification(
            reference=reference,
            provider_payment_id=api_payment.id,
            state=API_STATES.get(api_payment.status, State.PENDING),
            amount=_amount(api_payment.amount.value),
            currency=api_payment.amount.currency,
            payment_method=(getattr(method, "type", "") or "")[:32] if method else "",
            card_last4=(getattr(card, "last4", "") or "")[:4] if card else "",
        )
