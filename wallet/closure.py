"""What the wallet requires before an account closes: no money left in it, none on the way.

The rule: a closing account holds nothing (on a play-money site, chips may stay in it). The
player withdraws his balance first and staff pay it out; a withdrawal waiting for staff or a
deposit in progress has to be settled first.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

from wallet.models import Account, Payment, Withdrawal
from wallet.money import format_money


def wallet_closure_problem(user) -> str | None:
    # Locks the wallet first, so no stake or deposit can land on it while the account closes.
    account = (
        Account.objects.select_for_update().filter(kind=Account.Kind.USER, user_id=user.pk).first()
    )
    # Chips are worth nothing outside the site: they stay in the closed account's ledger.
    if account is not None and account.balance > 0 and not settings.PLAY_MONEY:
        return _(
            "The wallet still holds %(amount)s. Withdraw it first (or staff pay it out) "
            "before the account can close."
        ) % {"amount": format_money(account.balance)}
    if Withdrawal.objects.filter(user_id=user.pk, status=Withdrawal.Status.PENDING).exists():
        return _(
            "A withdrawal is still waiting for staff. Close the account once it is paid out "
            "(or cancel it and withdraw again)."
        )
    if Payment.objects.filter(user_id=user.pk, status__in=Payment.OPEN_STATUSES).exists():
        return _(
            "A deposit is still in progress. Close the account once it is credited or expired."
        )
    return None
