"""Where a request comes from: the client's address and the browser, for the fair-play checks.

A browser is told apart by a random id in a long-lived cookie of its own (not the session's,
which changes with each login) and by a hash of its user agent; neither says who the player is.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

BROWSER_COOKIE = "browser"
BROWSER_COOKIE_SECONDS = 2 * 365 * 24 * 3600
BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)


@dataclass(frozen=True)
class Client:
    address: str | None
    browser_id: str
    user_agent_hash: str


def user_agent_hash(user_agent: str) -> str:
    return hashlib.sha256(user_agent.encode()).hexdigest()[:16] if user_agent else ""


def client_of(request: HttpRequest) -> Client:
    """The address (behind TRUSTED_PROXY_COUNT proxies, as the login limits count it), the
    browser's cookie id and its user agent's hash."""
    try:
        address = get_adapter(request).get_client_ip(request)
    except PermissionDenied:
        address = None
    return Client(
        address=address,
        browser_id=getattr(request, "browser_id", ""),
        user_agent_hash=user_agent_hash(request.META.get("HTTP_USER_AGENT", "")),
    )


def address_of_scope(scope: Mapping[str, Any]) -> str | None:
    """A WebSocket's client address: the one the server took from the connection (behind the
    proxy, from the X-Forwarded-For it sets: Daphne's ``--proxy-headers`` when
    TRUSTED_PROXY_COUNT is above 0)."""
    return (scope.get("client") or [None])[0]


def client_of_scope(scope: Mapping[str, Any]) -> Client:
    """The same for a WebSocket: its address, the browser's cookie id and its user agent's hash."""
    known = scope.get("cookies", {}).get(BROWSER_COOKIE, "")
    agent = next((value for name, value in scope.get("headers", []) if name == b"user-agent"), b"")
    return Client(
        address=address_of_scope(scope),
        browser_id=known if BROWSER_ID.fullmatch(known) else "",
        user_agent_hash=user_agent_hash(agent.decode("latin-1")),
    )


class BrowserIdMiddleware:
    """Give each browser a random id that outlives logins and logouts."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        known = request.COOKIES.get(BROWSER_COOKIE, "")
        valid = BROWSER_ID.fullmatch(known) is not None
        request.browser_id = known if valid else secrets.token_urlsafe(16)
        response = self.get_response(request)
        if not valid:
            response.set_cookie(
                BROWSER_COOKIE,
                request.browser_id,
                max_age=BROWSER_COOKIE_SECONDS,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
