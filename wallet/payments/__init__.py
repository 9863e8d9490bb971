"""Payment providers behind one small interface.

A provider knows three things: where to send a player to pay (``checkout_url``), how to read
and authenticate its notification (``read_notification``), and how to answer it so that it
stops retrying (``answer``). Everything else (states, limits, crediting exactly once) is the
same for every provider and lives in ``wallet.deposits``.
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

    from wallet.models import Payment


@dataclass(frozen=True)
class Notification:
    """What a provider says about one payment, once its signature has been checked."""

    reference: uuid.UUID
    provider_payment_id: str
    succeeded: bool
    amount: int
    currency: str


class InvalidNotification(Exception):
    """A notification that is forged, malformed or not signed with the shared secret."""


class PaymentProvider(Protocol):
    code: str
    label: str | Promise

    def checkout_url(self, payment: Payment, *, site_url: str) -> str:
        """Where the player is sent to pay ``payment``; ``site_url`` is this site's origin."""

    def checkout_origin(self) -> str:
        """The origin of the checkout page when it is not this site, else ``""``."""

    def read_notification(self, *, body: bytes, headers: Mapping[str, str]) -> Notification:
        """The authenticated content of a notification; raises ``InvalidNotification``."""

    def answer(self, *, accepted: bool, outcome: str) -> HttpResponse:
        """The reply the provider expects: ``accepted`` ones are not sent again."""


def enabled_providers() -> dict[str, PaymentProvider]:
    """The providers this installation offers, by code, as settings allow (none on a
    play-money site)."""
    if settings.PLAY_MONEY:
        return {}
    from wallet.payments.test_provider import TestProvider
    from wallet.payments.webhook import SignedWebhookProvider

    providers: list[PaymentProvider] = []
    if SignedWebhookProvider.configured():
        providers.append(SignedWebhookProvider())
    if TestProvider.configured():
        providers.append(TestProvider())
    return {provider.code: provider for provider in providers}


def get_provider(code: str) -> PaymentProvider | None:
    return enabled_providers().get(code)
