from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from wallet.limits import reminder_minutes
from wallet.money import currency_sign, format_money
from wallet.selectors import user_balance


def header_balance(request: HttpRequest) -> dict[str, str | bool | None]:
    """The logged-in player's balance for the page header (None for visitors), whether his
    wallet is empty (the header then offers a top-up), the currency sign for labels, and where
    a player tops his wallet up: the deposit page, or on a play-money site the wallet page
    with its free chips."""
    shared = {
        "currency_sign": currency_sign(),
        "play_money": settings.PLAY_MONEY,
        "top_up_url": reverse("wallet" if settings.PLAY_MONEY else "deposit"),
        "top_up_label": _("Get chips") if settings.PLAY_MONEY else _("Deposit"),
    }
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"header_balance": None, "header_balance_empty": False, **shared}
    amount = user_balance(user=user)
    return {
        "header_balance": format_money(amount),
        "header_balance_empty": amount <= 0,
        **shared,
    }


def play_reminder(request: HttpRequest) -> dict[str, object]:
    """Minutes of play after which the player asked to be reminded (None: no reminder)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"play_reminder_minutes": None}
    # Called by the template only where it is shown, so other responses pay no query.
    return {"play_reminder_minutes": lambda: reminder_minutes(user=user)}
