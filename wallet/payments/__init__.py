"""Payment providers behind one small interface.

A provider knows where to send a player to pay (``checkout_url``), how to read and
authenticate its notification (``read_notification``), and how to answer it so that it stops
retrying (``answer``). A provider with an API it can be asked also looks a payment up
(``payment_state``), captures money held for a payment (``capture``), releases it
(``cancel``) and pays money back (``refund``). Everything else (states, limits, crediting
exactly once) is the same for every provider and lives in ``wallet.deposits``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from django.conf import settings
from django.http import HttpResponse
from django.utils.functional import Promise

if TYPE_CHECKING:
    from collections.abc import Mapping

    from wallet.models import Payment, Refund


class State:
    """What a provider says of a payment."""

    SUCCEEDED = "succeeded"  # the money is taken
    FAILED = "failed"  # declined or cancelled: nothing was taken
    CAPTURABLE = "capturable"  # the money is held for us until we capture or cancel it
    PENDING = "pending"  # the player has not paid yet


@dataclass(frozen=True)
class Notification:
    """What a provider says about one payment, once authenticated."""

    reference: uuid.UUID
    provider_payment_id: str
    state: str
    amount: int
    currency: str
    payment_method: str = ""
    card_last4: str = ""

    @property
    def succeeded(self) -> bool:
        return self.state == State.SUCCEEDED


class InvalidNotification(Exception):
    """A notification that is forged, malformed or not signed with the shared secret."""


class ProviderUnavailable(Exception):
    """The provider's API did not answer, or answered with an error."""


class PaymentProvider(Protocol):
    code: str
    label: str | Promise

    def checkout_url(self, payment: Payment, *, site_url: str) -> str:
        """Where the player is sent to pay ``payment``; ``site_url`` is this site's origin.

        A provider that names its payment at once sets ``payment.provider_payment_id``."""

    def checkout_origin(self) -> str:
        """The origin of the checkout page when it is not this site, else ``""``."""

    def read_notification(
        self, *, body: bytes, headers: Mapping[str, str], sender: str | None
    ) -> Notification:
        """The authenticated content of a notification sent from the address ``sender``;
        raises ``InvalidNotification``."""

    def answer(self, *, accepted: bool, outcome: str) -> HttpResponse:
        """The reply the provider expects: ``accepted`` ones are not sent again."""


class ProviderWithApi(PaymentProvider, Protocol):
    def payment_state(self, payment: Payment) -> Notification:
        """What the provider's API says of ``payment`` now."""

    def capture(self, payment: Payment) -> Notification:
        """Take the money held for ``payment``."""

    def cancel(self, payment: Payment) -> Notification:
        """Release the money held for ``payment``."""

    def refund(self, refund: Refund) -> tuple[str, str]:
        """Pay ``refund`` back (again, safely, if asked twice): the provider's refund id and
        its state, one of ``State.SUCCEEDED``, ``State.FAILED``, ``State.PENDING``."""


def _provider_classes() -> list[type]:
    """Every provider this code knows, in the order the deposit page offers them."""
    from wallet.payments.test_provider import TestProvider
    from wallet.payments.webhook import SignedWebhookProvider
    from wallet.payments.yookassa import YooKassaProvider

    return [YooKassaProvider, SignedWebhookProvider, TestProvider]


def enabled_providers() -> dict[str, PaymentProvider]:
    """The providers this installation offers, by code, as settings allow (none on a
    play-money site)."""
    if settings.PLAY_MONEY:
        return {}
    return {cls.code: cls() for cls in _provider_classes() if cls.configured()}


def provider_label(code: str) -> str:
    """The name players know a provider by, enabled now or not; its code if unknown."""
    return next((str(cls.label) for cls in _provider_classes() if cls.code == code), code)


def get_provider(code: str) -> PaymentProvider | None:
    return enabled_providers().get(code)


def api_provider(code: str) -> ProviderWithApi | None:
    """The enabled provider ``code`` if it has an API to ask, else None."""
    provider = get_provider(code)
    return provider if hasattr(provider, "payment_state") else None
