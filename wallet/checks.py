"""Deployment checks of the cashier's settings (``manage.py check --deploy``)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def payments_test_mode_off(app_configs, **kwargs) -> list[Warning]:
    if settings.PAYMENTS_TEST_MODE:
        return [
            Warning(
                "PAYMENTS_TEST_MODE is on: anyone can credit his wallet through the test "
                "payment page.",
                hint="Unset PAYMENTS_TEST_MODE in production.",
                id="wallet.W001",
            )
        ]
    return []


@register(Tags.security, deploy=True)
def yookassa_senders_checked(app_configs, **kwargs) -> list[Warning]:
    if settings.YOOKASSA_SHOP_ID and not settings.YOOKASSA_TRUSTED_SENDERS_ONLY:
        return [
            Warning(
                "YOOKASSA_TRUSTED_SENDERS_ONLY is off: anyone may send YooKassa notifications "
                "(each is still checked with YooKassa's API, at the cost of a request).",
                hint="Turn it on, with TRUSTED_PROXY_COUNT right behind a reverse proxy.",
                id="wallet.W002",
            )
        ]
    return []
