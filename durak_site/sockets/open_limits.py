"""Sockets opened too often are refused before anything reads the database.

Opening a socket costs the server far more than a message: its session and user are read from
the database before the socket's own checks run. Opens are counted per client address (many
players may share one behind a router) and per session cookie, whose key names a flooder
without any read (a forged or random cookie is still counted by its address). Over either limit
the socket is accepted and closed with ``CLOSE_OPENED_TOO_OFTEN``, as docs/protocol.md says, so
that the client backs off. The sockets count each user's opens after the login too.

Even a refusal costs the server a connection and a handshake, so it is answered only after
``REFUSAL_DELAY_SECONDS``: a client that opens again as soon as it is refused gets one refusal
a second per connection it keeps trying, while a waiting connection costs next to nothing.
"""

from __future__ import annotations

import asyncio
import hashlib

from django.conf import settings
from django.http.cookie import parse_cookie

from durak_site.backends import rate_limits
from durak_site.ops import metrics
from durak_site.web.client_source import address_of_scope

CLOSE_OPENED_TOO_OFTEN = 4430
# One session opens at most what its user may (games.consumers counts per user).
OPENS_PER_SECOND_SESSION = 0.5
OPENS_BURST_SESSION = 20.0
OPENS_PER_SECOND_ADDRESS = settings.SOCKET_ADDRESS_OPENS_PER_SECOND
OPENS_BURST_ADDRESS = 30 * OPENS_PER_SECOND_ADDRESS
# Well under Daphne's handshake timeout (5 s), which would refuse the socket without its code.
REFUSAL_DELAY_SECONDS = 1.0


class OpenLimits:
    """Refuse a WebSocket over its address's or its session's open limit, before the session
    and user are looked up."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket" and not await opening_allowed(scope):
            metrics.refused(CLOSE_OPENED_TOO_OFTEN)
            await receive()  # the client's connect
            await asyncio.sleep(REFUSAL_DELAY_SECONDS)
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_OPENED_TOO_OFTEN})
            return
        await self.inner(scope, receive, send)


async def opening_allowed(scope: dict) -> bool:
    """Spend a token of the address's bucket, then one of the session's; False if either is
    empty."""
    address = address_of_scope(scope) or "unknown"
    if not await rate_limits.take_async(
        f"open:address:{address}", rate=OPENS_PER_SECOND_ADDRESS, burst=OPENS_BURST_ADDRESS
    ):
        return False
    session_key = _session_key(scope)
    return session_key is None or await rate_limits.take_async(
        f"open:session:{session_key}", rate=OPENS_PER_SECOND_SESSION, burst=OPENS_BURST_SESSION
    )


def _session_key(scope: dict) -> str | None:
    """A digest of the session cookie (the key itself logs in: it is not stored in Redis)."""
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            key = parse_cookie(value.decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
            if key:
                return hashlib.blake2b(key.encode(), digest_size=16).hexdigest()
    return None
