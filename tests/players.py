"""Players for tests: real users, funded through the wallet like any other deposit."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import itertools
import struct
import time

from allauth.account.models import EmailAddress
from allauth.mfa.totp.internal.auth import TOTP
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse

from wallet import services as wallet_services

PASSWORD = "Correct-Horse-42"
# The authenticator app secret of every test staff member (base32, as an app's QR code holds).
TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
_numbers = itertools.count(1)


@functools.cache
def _password_hash() -> str:
    # Hashing is slow on purpose (most of a second here): the test players share one hash.
    return make_password(PASSWORD)


def create_player(
    *,
    balance: int = 0,
    nickname: str | None = None,
    is_staff: bool = False,
    verified_email: bool = False,
    second_factor: bool | None = None,
):
    """A new user with ``balance`` kopecks deposited; logs in with PASSWORD.

    Staff get an authenticator app (TOTP_SECRET) as their second factor unless
    ``second_factor`` is False.
    """
    nickname = nickname or f"player{next(_numbers)}"
    user = get_user_model().objects.create_user(
        username=nickname, email=f"{nickname}@example.com", password=None, is_staff=is_staff
    )
    user.password = _password_hash()
    get_user_model().objects.filter(pk=user.pk).update(password=user.password)
    if verified_email:
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    if second_factor if second_factor is not None else is_staff:
        give_second_factor(user)
    if balance:
        wallet_services.deposit(
            user=user,
            amount=balance,
            idempotency_key=f"test-deposit:{user.pk}",
            initiated_by=None,
            memo="opening balance",
        )
    return user


def give_second_factor(user) -> None:
    """Set up TOTP_SECRET as ``user``'s authenticator app, as the setup page would."""
    TOTP.activate(user, TOTP_SECRET)


def totp_code(secret: str = TOTP_SECRET) -> str:
    """An authenticator app's code for ``secret`` now (RFC 6238: SHA-1, 30 s, 6 digits)."""
    counter = int(time.time() // 30)
    digest = hmac.new(base64.b32decode(secret), struct.pack(">Q", counter), hashlib.sha1)
    raw = digest.digest()
    offset = raw[-1] & 0x0F
    value = struct.unpack(">I", raw[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


def confirm_second_factor(client) -> None:
    """Give the second factor again in ``client``'s session, as staff do before a large payout
    or a balance adjustment."""
    response = client.post(reverse("mfa_reauthenticate"), {"code": totp_code()})
    assert response.status_code == 302, "the second factor was not accepted"


def session_cookie(user) -> str:
    """The Cookie header value of a logged-in session for ``user``."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"sessionid={session.session_key}"


def create_staff(*, nickname: str = "staff", **options):
    """A staff member with every permission (and a second factor, as every staff member)."""
    user = create_player(is_staff=True, nickname=nickname, **options)
    user.is_superuser = True
    user.save()
    return user
