"""Export columns of money: amounts leave as rubles with the currency in the header."""

from __future__ import annotations

from import_export import fields, widgets

from wallet.money import major_units, money_label


class MoneyWidget(widgets.Widget):
    """Minor units out as a number of major units (rubles), to be shown with two decimals."""

    def render(self, value, obj=None, **kwargs):
        return None if value is None else major_units(value)


def money_column(header, attribute: str | None = None) -> fields.Field:
    """A column of amounts whose header names the currency: «Сумма, ₽»."""
    return fields.Field(attribute=attribute, column_name=money_label(header), widget=MoneyWidget())
