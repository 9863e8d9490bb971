"""A cap on what waits to be sent to each WebSocket client.

Daphne gives the application no back-pressure: whatever is sent to a client that does not read
piles up in the server's memory. Twisted tells a connection's producer when the connection's
send buffer is full, and again once it has drained. In between, every frame sent is counted,
and when more than ``SOCKET_BACKLOG_BYTES`` wait the connection is dropped; the application
then sees an ordinary disconnect. The kernel's own send buffer comes before all this; it grows
by itself up to ``net.ipv4.tcp_wmem`` unless ``SOCKET_SEND_BUFFER_BYTES`` fixes it.
"""

from __future__ import annotations

import logging
import socket

from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from django.conf import settings
from twisted.internet.interfaces import IPushProducer
from zope.interface import implementer

logger = logging.getLogger(__name__)


@implementer(IPushProducer)
class _Backlog:
    """Stands in for the connection's producer (Daphne's HTTP channel) and tells it everything."""

    def __init__(self, producer) -> None:
        self.producer = producer
        self.full = False
        self.waiting = 0

    def pauseProducing(self) -> None:
        self.full = True
        if self.producer is not None:
            self.producer.pauseProducing()

    def resumeProducing(self) -> None:
        self.full = False
        self.waiting = 0
        if self.producer is not None:
            self.producer.resumeProducing()

    def stopProducing(self) -> None:
        if self.producer is not None:
            self.producer.stopProducing()


class BoundedWebSocketProtocol(WebSocketProtocol):
    backlog: _Backlog | None = None

    def connectionMade(self) -> None:
        super().connectionMade()
        producer = getattr(self.transport, "producer", None)
        if producer is not None:
            self.transport.unregisterProducer()
        self.backlog = _Backlog(producer)
        self.transport.registerProducer(self.backlog, True)
        if settings.SOCKET_SEND_BUFFER_BYTES:
            self.transport.getHandle().setsockopt(
                socket.SOL_SOCKET, socket.SO_SNDBUF, settings.SOCKET_SEND_BUFFER_BYTES
            )

    def serverSend(self, content, binary=False) -> None:
        if self.backlog is not None and self.backlog.full:
            self.backlog.waiting += len(content)
            if self.backlog.waiting > settings.SOCKET_BACKLOG_BYTES:
                if self.state != self.STATE_CLOSED:
                    logger.warning("dropped a WebSocket client that does not read: %s", self)
                    self.dropConnection(abort=True)
                return
        super().serverSend(content, binary)


def install() -> None:
    """Make Daphne build every WebSocket connection with the cap."""
    WebSocketFactory.protocol = BoundedWebSocketProtocol
