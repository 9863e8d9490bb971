"""A socket that meets a database or Redis outage is told to come back, not that it failed; and
one whose web process stops is told that it restarts.

Without this, an error in the handshake (the session and user lookup, the socket's claims in
Redis) answers HTTP 500, and one later closes the socket with 1011, both of which read as a
fault of the client. Instead the socket is closed with ``CLOSE_UNAVAILABLE`` (docs/protocol.md):
the client reconnects with backoff and resyncs by version once the servers are back.

A web process that stops (a restart, a deploy) closes its open sockets with
``CLOSE_RESTARTING`` before it goes, so that pages come back at once instead of after their
backoff.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from django.db import DatabaseError
from redis.exceptions import RedisError

# The server could not reach its database or Redis; retrying later will help.
CLOSE_UNAVAILABLE = 4503
# The web process is restarting: come back now (Daphne sends no standard code but 1000).
CLOSE_RESTARTING = 4012
# How long a stopping web process waits for its sockets' closes to go out.
RESTART_NOTICE_SECONDS = 1.0
# What a briefly unreachable or restarting PostgreSQL or Redis raises.
BACKEND_ERRORS: tuple[type[Exception], ...] = (DatabaseError, RedisError, ConnectionError)
logger = logging.getLogger(__name__)


class OutageMiddleware:
    """Close a WebSocket whose handling met a backend outage with ``CLOSE_UNAVAILABLE``, and
    keep the accepted ones at hand for ``close_sockets_on_shutdown``."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send) -> None:
        sent: set[str] = set()

        async def send_tracked(message: dict) -> None:
            sent.add(message["type"])
            if message["type"] == "websocket.accept":
                _accepted.add(send_tracked)
            elif message["type"] == "websocket.close":
                _accepted.discard(send_tracked)
            await send(message)

        try:
            await self.inner(scope, receive, send_tracked)
        except BACKEND_ERRORS as error:
            logger.warning("socket closed for a backend outage: %r", error)
            if "websocket.close" in sent:
                return
            # A close code reaches the client only on an accepted socket.
            if "websocket.accept" not in sent:
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_UNAVAILABLE})
        finally:
            _accepted.discard(send_tracked)


# The send of every accepted socket of this process that is still open.
_accepted: set[Callable[[dict], Awaitable[None]]] = set()


def close_sockets_on_shutdown() -> None:
    """Close every accepted socket with ``CLOSE_RESTARTING`` when the Twisted reactor Daphne
    serves with stops, before Daphne ends the handlers."""
    from twisted.internet import defer, reactor

    def close_all():
        if not _accepted:
            return None
        closes = asyncio.gather(
            *(send({"type": "websocket.close", "code": CLOSE_RESTARTING}) for send in _accepted),
            return_exceptions=True,  # a socket closing meanwhile
        )
        return defer.Deferred.fromFuture(
            asyncio.ensure_future(asyncio.wait_for(closes, RESTART_NOTICE_SECONDS))
        )

    reactor.addSystemEventTrigger("before", "shutdown", close_all)
