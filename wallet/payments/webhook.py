"""The generic signed-webhook provider (documented for integrators in docs/payments.md).

The player is sent to the provider's checkout page with the payment's reference, amount,
currency and the two addresses (return and notification), signed. The provider notifies with
a JSON body signed by HMAC-SHA256 over the raw bytes with the shared secret, hex-encoded in
the ``X-Signature`` header.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import uuid
from collections.abc import Mapping
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.http import JsonResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from wallet.models import Payment
from wallet.payments import InvalidNotification, Notification, State

SIGNATURE_HEADER = "X-Signature"
NOTIFICATION_FIELDS = {"reference", "payment_id", "status", "amount", "currency"}
STATUSES = {"succeeded": State.SUCCEEDED, "failed": State.FAILED}
MAX_BODY_BYTES = 4096
MAX_PAYMENT_ID_LENGTH = Payment._meta.get_field("provider_payment_id").max_length
CURRENCY_CODE = re.compile(r"[A-Z]{3}")


def sign(secret: str, payload: bytes) -> str:
    return hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()


class SignedWebhookProvider:
    code = "webhook"
    label = _("Bank card")

    @staticmethod
    def configured() -> bool:
        return bool(settings.PAYMENTS_WEBHOOK_SECRET and settings.PAYMENTS_WEBHOOK_CHECKOUT_URL)

    @property
    def secret(self) -> str:
        return settings.PAYMENTS_WEBHOOK_SECRET

    def checkout_url(self, payment: Payment, *, site_url: str) -> str:
        params = {
            "reference": str(payment.reference),
            "amount": str(payment.amount),
            "currency": payment.currency,
            "return_url": site_url + reverse("deposit_status", args=[payment.reference]),
            "notify_url": site_url + reverse("payment_notify", args=[self.code]),
        }
        query = urlencode(params)
        signature = sign(self.secret, query.encode())
        return f"{settings.PAYMENTS_WEBHOOK_CHECKOUT_URL}?{query}&signature={signature}"

    def checkout_origin(self) -> str:
        url = urlsplit(settings.PAYMENTS_WEBHOOK_CHECKOUT_URL)
        return f"{url.scheme}://{url.netloc}"

    def read_notification(
        self, *, body: bytes, headers: Mapping[str, str], sender: str | None = None
    ) -> Notification:
        if len(body) > MAX_BODY_BYTES:
            raise InvalidNotification("body too large")
        expected = sign(self.secret, body)
        # Constant time, so the signature cannot be guessed byte by byte from response times.
        if not hmac.compare_digest(expected, str(headers.get(SIGNATURE_HEADER, ""))):
            raise InvalidNotification("bad signature")
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as error:
            raise InvalidNotification("not JSON") from error
        if not isinstance(data, dict) or set(data) != NOTIFICATION_FIELDS:
            raise InvalidNotification("missing or extra fields")
        amount, payment_id, currency = data["amount"], data["payment_id"], data["currency"]
        if type(amount) is not int or amount <= 0:
            raise InvalidNotification("bad amount")
        # Printable only: a NUL or a lone surrogate cannot be stored, and no provider sends one.
        if (
            not isinstance(payment_id, str)
            or not 0 < len(payment_id) <= MAX_PAYMENT_ID_LENGTH
            or not payment_id.isprintable()
        ):
            raise InvalidNotification("bad payment id")
        if not isinstance(currency, str) or not CURRENCY_CODE.fullmatch(currency):
            raise InvalidNotification("bad currency")
        if data["status"] not in STATUSES:
            raise InvalidNotification("bad status")
        try:
            reference = uuid.UUID(str(data["reference"]))
        except ValueError as error:
            raise InvalidNotification("bad reference") from error
        return Notification(
            reference=reference,
            provider_payment_id=payment_id,
            state=STATUSES[data["status"]],
            amount=amount,
            currency=currency,
        )

    def answer(self, *, accepted: bool, outcome: str) -> JsonResponse:
        return JsonResponse({"result": outcome}, status=200 if accepted else 400)
