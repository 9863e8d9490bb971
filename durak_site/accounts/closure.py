"""Closing an account: the player's personal data goes, his books and games stay.

The nickname becomes «удалённый игрок №N» (N is the account's number), the e-mail address an
address that cannot receive mail, the password unusable; his e-mail addresses, sessions and
devices' push subscriptions are deleted. The ledger, seats, games and event logs keep pointing
at the same row, so the books and the replays add up exactly as before, under the new name.

What must hold before an account may close (no money left in the wallet, no seat at a table,
nothing pending) belongs to the apps that know it. They register a check with
``closure_check`` from their ``AppConfig.ready()``, which keeps the dependencies pointing down.
"""

from __future__ import annotations

from collections.abc import Callable

from allauth.account.models import EmailAddress
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from durak_site.accounts.models import User
from durak_site.audit.services import record_staff_action
from durak_site.push.models import PushSubscription

# The same in every language: it is the stored nickname, shown wherever the player was.
CLOSED_NICKNAME = "удалённый игрок №{number}"

# Returns why ``user`` may not close now (for the player or staff to read), or None.
ClosureCheck = Callable[[User], str | None]
_checks: list[ClosureCheck] = []


class AccountClosureRefused(Exception):
    def __init__(self, message) -> None:
        self.message = str(message)
        super().__init__(self.message)


def closure_check(check: ClosureCheck) -> ClosureCheck:
    """Register ``check``; every account closure runs it, inside the closing transaction."""
    if check not in _checks:
        _checks.append(check)
    return check


def account_close(*, user: User, staff: User | None = None, reason: str = "") -> User:
    """Close ``user``'s account: by the player himself, or by ``staff`` for ``reason``.

    Raises ``AccountClosureRefused`` (and changes nothing) when a registered check objects,
    when the account is already closed, or when staff give no reason.
    """
    reason = (reason or "").strip()
    if staff is not None and not reason:
        raise AccountClosureRefused(_("A reason is required."))
    with transaction.atomic():
        # NO KEY UPDATE: rows that merely reference the player (a seat, a transaction he
        # initiates) may still be inserted meanwhile, so no deadlock with a stake being held.
        user = User.objects.select_for_update(no_key=True).get(pk=user.pk)
        if user.closed_at is not None:
            raise AccountClosureRefused(_("This account is already closed."))
        for check in _checks:
            problem = check(user)
            if problem:
                raise AccountClosureRefused(problem)
        _anonymise(user)
        if staff is not None:
            record_staff_action(staff=staff, action="accounts.close", reason=reason, target=user)
    return user


def _anonymise(user: User) -> None:
    user.username = CLOSED_NICKNAME.format(number=user.pk)
    user.email = f"closed-{user.pk}@closed.invalid"  # .invalid never resolves (RFC 2606)
    user.first_name = user.last_name = ""
    user.set_unusable_password()
    user.is_active = user.is_staff = user.is_superuser = False
    user.last_login = None
    user.closed_at = timezone.now()
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    EmailAddress.objects.filter(user=user).delete()
    PushSubscription.objects.filter(user=user).delete()
    _delete_sessions(user)


def _delete_sessions(user: User) -> None:
    """Sessions do not index their user: read the live ones (closing is rare)."""
    user_id = str(user.pk)
    doomed = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if session.get_decoded().get("_auth_user_id") == user_id
    ]
    Session.objects.filter(pk__in=doomed).delete()
