"""Reads of the ledger."""

from __future__ import annotations

from django.db.models import QuerySet

from wallet.models import Account, Entry


def user_balance(*, user) -> int:
    """The player's wallet balance in minor units; 0 before the first movement."""
    if getattr(user, "pk", None) is None:
        return 0
    balance = (
        Account.objects.filter(kind=Account.Kind.USER, user_id=user.pk)
        .values_list("balance", flat=True)
        .first()
    )
    return balance or 0


def user_statement(*, user) -> QuerySet[Entry]:
    """The player's wallet entries, newest first, each with its transaction and balance after."""
    if getattr(user, "pk", None) is None:
        return Entry.objects.none()
    return (
        Entry.objects.filter(account__kind=Account.Kind.USER, account__user_id=user.pk)
        .select_related("transaction")
        .order_by("-id")
    )


def account_statement(*, account: Account) -> QuerySet[Entry]:
    """Any account's entries in posting order (oldest first), for exports."""
    return Entry.objects.filter(account=account).select_related("transaction").order_by("id")
