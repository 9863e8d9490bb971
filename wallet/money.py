"""Showing amounts of minor units in the active language, in the site's one unit of money.

The unit is the currency (``CURRENCY``), or chips on a play-money site (``PLAY_MONEY``): pages,
e-mails, exports, statements and the scripts (``money_format_spec``) all take it from here.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.utils.functional import lazy
from django.utils.translation import get_language, gettext, ngettext

from durak_site.web.plurals import plural_forms

MINOR_UNITS_PER_MAJOR = 100
CURRENCY_SIGNS = {"RUB": "₽", "USD": "$", "EUR": "€"}
MINUS = "\u2212"


def currency_sign() -> str:
    """The site currency's sign (its code when it has none), the same in every language; on a
    play-money site the word for chips in the active language («фишки»)."""
    if settings.PLAY_MONEY:
        return gettext("chips")
    return CURRENCY_SIGNS.get(settings.CURRENCY, settings.CURRENCY)


def _russian() -> bool:
    return (get_language() or settings.LANGUAGE_CODE).startswith("ru")


def _with_currency(label: str) -> str:
    return f"{label}, {currency_sign()}"


# A form label naming its currency, translated when shown: "Stake, ₽" / "Ставка, ₽".
money_label = lazy(_with_currency, str)


def format_money(amount: int, *, signed: bool = False) -> str:
    """1 250,00 ₽ in Russian, ₽1,250.00 in English; chips as 1 250 фишек / 1,250 chips (12,50
    фишки when not whole). ``signed`` adds + to positive amounts."""
    major, minor = divmod(abs(int(amount)), MINOR_UNITS_PER_MAJOR)
    russian = _russian()
    grouped = f"{major:,}".replace(",", " ") if russian else f"{major:,}"
    fraction = f"{',' if russian else '.'}{minor:02d}"
    if settings.PLAY_MONEY:
        if minor:
            text = f"{grouped}{fraction} {currency_sign()}"
        else:
            text = ngettext("%(amount)s chip", "%(amount)s chips", major) % {"amount": grouped}
    elif russian:
        text = f"{grouped}{fraction} {currency_sign()}"
    else:
        text = f"{currency_sign()}{grouped}{fraction}"
    if amount < 0:
        return MINUS + text
    if signed and amount > 0:
        return "+" + text
    return text


def money_format_spec() -> dict:
    """What the scripts' formatMoney (static/js/i18n.js) needs to show amounts as this module
    does: the language, the sign, and on a play-money site the forms of "N chips"."""
    spec = {"language": "ru" if _russian() else "en", "sign": currency_sign()}
    if settings.PLAY_MONEY:
        spec["chips"] = plural_forms("%(amount)s chip", "%(amount)s chips")
    return spec


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
