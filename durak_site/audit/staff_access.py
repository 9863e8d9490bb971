"""Staff access in the audit trail: sign-ins, failed passwords and codes, second-factor changes.

Receivers of Django's and allauth's signals; players' sign-ins are not recorded here.
"""

from __future__ import annotations

from allauth.account.adapter import get_adapter as get_account_adapter
from allauth.mfa import signals as mfa_signals
from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.dispatch import receiver
from django.http import HttpRequest

from durak_site.audit.services import record_staff_action


def _client(request: HttpRequest | None) -> dict:
    if request is None:
        return {}
    try:
        address = get_account_adapter(request).get_client_ip(request)
    except PermissionDenied:  # a request made in the server itself, with no client
        address = None
    return {"ip": address, "user_agent": request.META.get("HTTP_USER_AGENT", "")[:200]}


def _record(staff, action: str, reason: str, request: HttpRequest | None, **details) -> None:
    record_staff_action(
        staff=staff,
        action=action,
        reason=reason,
        target=staff,
        details={**_client(request), **details},
    )


@receiver(user_logged_in, dispatch_uid="audit_staff_sign_in")
def staff_signed_in(sender, request: HttpRequest | None, user, **kwargs) -> None:
    if user.is_staff:
        _record(user, "staff.sign_in", "Signed in", request)


@receiver(user_login_failed, dispatch_uid="audit_staff_sign_in_failed")
def staff_sign_in_failed(sender, credentials: dict, request: HttpRequest | None = None, **kwargs):
    """A wrong password given for a staff member's e-mail or nickname."""
    name = credentials.get("email") or credentials.get("username")
    if not name:
        return
    staff = (
        get_user_model()
        .objects.filter(Q(email__iexact=name) | Q(username=name), is_staff=True)
        .first()
    )
    if staff is not None:
        _record(staff, "staff.sign_in_failed", "Wrong password", request)


@receiver(mfa_signals.authentication_failed, dispatch_uid="audit_staff_code_failed")
def staff_code_failed(sender, request, user, authenticator: Authenticator, **kwargs) -> None:
    if user.is_staff:
        reauthentication = bool(kwargs.get("reauthentication"))
        _record(
            user,
            "staff.second_factor_failed",
            "Wrong second-factor code",
            request,
            authenticator=authenticator.type,
            reauthentication=reauthentication,
        )


@receiver(mfa_signals.authenticator_used, dispatch_uid="audit_staff_code_used")
def staff_code_used(sender, request, user, authenticator: Authenticator, **kwargs) -> None:
    if user.is_staff:
        _record(
            user,
            "staff.second_factor_used",
            "Confirmed again" if kwargs.get("reauthenticated") else "Second factor given",
            request,
            authenticator=authenticator.type,
            passwordless=bool(kwargs.get("passwordless")),
        )


def _change_receiver(action: str, reason: str):
    def receive(sender, request, user, authenticator: Authenticator, **kwargs) -> None:
        if user.is_staff:
            _record(user, action, reason, request, authenticator=authenticator.type)

    return receive


for signal, action, reason in [
    (mfa_signals.authenticator_added, "staff.second_factor_added", "Second factor added"),
    (mfa_signals.authenticator_removed, "staff.second_factor_removed", "Second factor removed"),
    (mfa_signals.authenticator_reset, "staff.second_factor_reset", "Recovery codes renewed"),
]:
    signal.connect(_change_receiver(action, reason), weak=False, dispatch_uid=f"audit_{action}")
