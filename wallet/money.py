"""Showing amounts of minor units in the active language."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.utils.functional import lazy
from django.utils.translation import get_language

MINOR_UNITS_PER_MAJOR = 100
CURRENCY_SIGNS = {"RUB": "₽", "USD": "$", "EUR": "€"}
MINUS = "\u2212"


def currency_sign() -> str:
    """The site currency's sign (its code when it has none), the same in every language."""
    return CURRENCY_SIGNS.get(settings.CURRENCY, settings.CURRENCY)


def _with_currency(label: str) -> str:
    return f"{label}, {currency_sign()}"


# A form label naming its currency, translated when shown: "Stake, ₽" / "Ставка, ₽".
money_label = lazy(_with_currency, str)


def format_money(amount: int, *, signed: bool = False) -> str:
    """1 250,00 ₽ in Russian, ₽1,250.00 in English; ``signed`` adds + to positive amounts."""
    major, minor = divmod(abs(int(amount)), MINOR_UNITS_PER_MAJOR)
    if (get_language() or settings.LANGUAGE_CODE).startswith("ru"):
        digits = f"{major:,}".replace(",", " ") + f",{minor:02d}"
        text = f"{digits} {currency_sign()}"
    else:
        text = f"{currency_sign()}{major:,}.{minor:02d}"
    if amount < 0:
        return MINUS + text
    if signed and amount > 0:
        return "+" + text
    return text


def major_units(amount: int) -> Decimal:
    """Integer minor units as an exact Decimal of major units: 30000 -> Decimal("300.00")."""
    return (Decimal(int(amount)) / MINOR_UNITS_PER_MAJOR).quantize(Decimal("0.01"))


def parse_major_units(value) -> int:
    """A Decimal of major units (e.g. 12.50) as integer minor units."""
    return int(value * MINOR_UNITS_PER_MAJOR)


def money_display(field: str, description):
    """An admin column or read-only field showing a minor-units field as money (100,00 ₽)."""

    def show(model_admin, obj) -> str:
        amount = getattr(obj, field)
        return "—" if amount is None else format_money(amount)

    show.short_description = description
    show.admin_order_field = field
    return show
