from django import template

from wallet.money import format_money

register = template.Library()


@register.filter
def money(amount: int | None) -> str:
    """``{{ amount|money }}``: minor units formatted for the active language."""
    return "" if amount is None else format_money(amount)


@register.filter
def signed_money(amount: int | None) -> str:
    """``{{ amount|signed_money }}``: like ``money``, with + on credits."""
    return "" if amount is None else format_money(amount, signed=True)
