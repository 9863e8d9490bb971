"""The test provider: a page of this site, clearly marked as test mode, that "pays" by sending
the same signed notification a real provider would. Only offered when PAYMENTS_TEST_MODE is on.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from wallet.models import Payment
from wallet.payments.webhook import SIGNATURE_HEADER, SignedWebhookProvider, sign


class TestProvider(SignedWebhookProvider):
    __test__ = False  # a provider, not a test case, despite its name

    code = "test"
    label = _("Test payment (no real money)")

    @staticmethod
    def configured() -> bool:
        return settings.PAYMENTS_TEST_MODE

    @property
    def secret(self) -> str:
        # Derived, so every process of one installation agrees without configuration.
        return hashlib.sha256(f"test-payments:{settings.SECRET_KEY}".encode()).hexdigest()

    def checkout_url(self, payment: Payment, *, site_url: str) -> str:
        return site_url + reverse("payment_test_page", args=[payment.reference])

    def checkout_origin(self) -> str:
        return ""

    def notification(self, payment: Payment, *, succeeded: bool) -> tuple[bytes, dict[str, str]]:
        """The signed notification the test page sends for ``payment``: body and headers."""
        body = json.dumps(
            {
                "reference": str(payment.reference),
                "payment_id": f"test-{payment.reference}",
                "status": "succeeded" if succeeded else "failed",
                "amount": payment.amount,
                "currency": payment.currency,
            }
        ).encode()
        return body, {SIGNATURE_HEADER: sign(self.secret, body)}
