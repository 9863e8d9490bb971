from __future__ import annotations

from django.http import HttpRequest

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
