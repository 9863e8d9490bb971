from __future__ import annotations

from django.http import HttpRequest

from wallet.limits import reminder_minutes
from wallet.money import currency_sign, format_money
from wallet.selectors import user_balance


def header_balance(request: HttpRequest) -> dict[str, str | None]:
    """The logged-in player's balance for the page header (None for visitors), and the
    currency sign for labels."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"header_balance": None, "currency_sign": currency_sign()}
    return {
        "header_balance": format_money(user_balance(user=user)),
        "currency_sign": currency_sign(),
    }


def play_reminder(request: HttpRequest) -> dict[str, object]:
    """Minutes of play after which the player asked to be reminded (None: no reminder)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"play_reminder_minutes": None}
    # Called by the template only where it is shown, so other responses pay no query.
    return {"play_reminder_minutes": lambda: reminder_minutes(user=user)}
