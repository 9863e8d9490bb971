"""Showing amounts of minor units in the active language."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import get_language

MINOR_UNITS_PER_MAJOR = 100
CURRENCY_SIGNS = {"RUB": "₽", "USD": "$", "EUR": "€"}
MINUS = "\u2212"


def format_money(amount: int, *, signed: bool = False) -> str:
    """1 250,00 ₽ in Russian, RUB 1,250.00 in English; ``signed`` adds + to positive amounts."""
    major, minor = divmod(abs(int(amount)), MINOR_UNITS_PER_MAJOR)
    currency = settings.CURRENCY
    if (get_language() or settings.LANGUAGE_CODE).startswith("ru"):
        digits = f"{major:,}".replace(",", " ") + f",{minor:02d}"
        text = f"{digits} {CURRENCY_SIGNS.get(currency, currency)}"
    else:
        text = f"{currency} {major:,}.{minor:02d}"
    if amount < 0:
        return MINUS + text
    if signed and amount > 0:
        return "+" + text
    return text


def parse_major_units(value) -> int:
    """A Decimal of major units (e.g. 12.50) as integer minor units."""
    return int(value * MINOR_UNITS_PER_MAJOR)
