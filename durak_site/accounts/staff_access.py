"""What staff access demands beyond a password: a second factor before any admin page, sessions
that end when left idle, and the second factor asked again before the riskiest money actions.

The second factor itself (TOTP with recovery codes, WebAuthn passkeys) is allauth's ``mfa`` app;
signing in to the admin goes through allauth's login (``secure_admin_login`` in the URLs), which
asks for the second factor once one is set up.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from allauth.account import app_settings as account_settings
from allauth.account.authentication import get_authentication_records
from allauth.core.exceptions import ReauthenticationRequired
from allauth.mfa.utils import is_mfa_enabled
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _


def _is_staff(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated and user.is_staff)


class StaffAccessMiddleware:
    """Staff sessions end after STAFF_SESSION_IDLE_SECONDS without a request, and staff without
    a second factor are sent to set one up before any admin page opens."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _is_staff(request):
            # Each request moves the end of the session forward; the cookie and the stored
            # session both expire when the member of staff stops using it.
            request.session.set_expiry(settings.STAFF_SESSION_IDLE_SECONDS)
            if request.path.startswith(reverse("admin:index")) and not is_mfa_enabled(request.user):
                messages.warning(
                    request, _("Set up a second factor before you use the staff pages.")
                )
                setup = reverse("mfa_index")
                return HttpResponseRedirect(f"{setup}?{urlencode({'next': request.path})}")
        return self.get_response(request)


def login_name(request: HttpRequest, credentials: dict | None) -> str | None:
    """The name a login attempt gave, for the login throttle (django-axes): the e-mail address
    allauth authenticates with, or the nickname in a re-entered password check."""
    given = (credentials or {}).get("email") or (credentials or {}).get("username")
    if given is None and request is not None:
        given = request.POST.get("login")
    return given.strip().lower() if given else None


def second_factor_confirmed_recently(request: HttpRequest) -> bool:
    """Whether the user confirmed his second factor again within the re-authentication timeout.

    A password re-entered does not count: the actions guarded by this need the second factor.
    """
    now = time.time()
    return any(
        record.get("method") == "mfa"
        and record.get("reauthenticated")
        and now - record["at"] < account_settings.REAUTHENTICATION_TIMEOUT
        for record in get_authentication_records(request, request.user)
    )


def require_second_factor_again(request: HttpRequest) -> None:
    """Raise allauth's ReauthenticationRequired unless the second factor was just confirmed.

    allauth's middleware then keeps the request (a POST included), asks for the second factor
    (the adapter offers staff no password re-entry) and replays the request once it is given.
    """
    if not second_factor_confirmed_recently(request):
        raise ReauthenticationRequired()
