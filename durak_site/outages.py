"""A socket that meets a database or Redis outage is told to come back, not that it failed.

Without this, an error in the handshake (the session and user lookup, the socket's claims in
Redis) answers HTTP 500, and one later closes the socket with 1011, both of which read as a
fault of the client. Instead the socket is closed with ``CLOSE_UNAVAILABLE`` (docs/protocol.md):
the client reconnects with backoff and resyncs by version once the servers are back.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError
from redis.exceptions import RedisError

# The server could not reach its database or Redis; retrying later will help.
CLOSE_UNAVAILABLE = 4503
# What a briefly unreachable or restarting PostgreSQL or Redis raises.
BACKEND_ERRORS: tuple[type[Exception], ...] = (DatabaseError, RedisError, ConnectionError)
logger = logging.getLogger(__name__)


class OutageMiddleware:
    """Close a WebSocket whose handling met a backend outage with ``CLOSE_UNAVAILABLE``."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send) -> None:
        sent: set[str] = set()

        async def send_tracked(message: dict) -> None:
            sent.add(message["type"])
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
