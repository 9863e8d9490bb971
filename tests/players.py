"""Players for tests: real users, funded through the wallet like any other deposit."""

from __future__ import annotations

import functools
import itertools

from allauth.account.models import EmailAddress
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.sessions.backends.db import SessionStore

from wallet import services as wallet_services

PASSWORD = "Correct-Horse-42"
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
):
    """A new user with ``balance`` kopecks deposited; logs in with PASSWORD."""
    nickname = nickname or f"player{next(_numbers)}"
    user = get_user_model().objects.create_user(
        username=nickname, email=f"{nickname}@example.com", password=None, is_staff=is_staff
    )
    user.password = _password_hash()
    get_user_model().objects.filter(pk=user.pk).update(password=user.password)
    if verified_email:
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    if balance:
        wallet_services.deposit(
            user=user,
            amount=balance,
            idempotency_key=f"test-deposit:{user.pk}",
            initiated_by=None,
            memo="opening balance",
        )
    return user


def session_cookie(user) -> str:
    """The Cookie header value of a logged-in session for ``user``."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"sessionid={session.session_key}"


def create_staff(*, nickname: str = "staff"):
    """A staff member with every permission."""
    user = create_player(is_staff=True, nickname=nickname)
    user.is_superuser = True
    user.save()
    return user
