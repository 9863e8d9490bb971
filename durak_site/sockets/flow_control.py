"""Caps on what waits to be sent to each WebSocket client, and on what waits to be handled.

Daphne gives the application no back-pressure: whatever is sent to a client that does not read
piles up in the server's memory. Twisted tells a connection's producer when the connection's
send buffer is full, and again once it has drained. In between, every frame sent is counted,
and when more than ``SOCKET_BACKLOG_BYTES`` wait the connection is dropped; the application
then sees an ordinary disconnect. The kernel's own send buffer comes before all this; it grows
by itself up to ``net.ipv4.tcp_wmem`` unless ``SOCKET_SEND_BUFFER_BYTES`` fixes it.

Nor does Daphne stop reading a client that sends faster than its handler works: it parses
every frame that arrives and queues it for the handler, so a flooding client costs the process
its event loop and its memory, and after the server closed the socket Daphne still parses all
the client sent meanwhile, until the close handshake's timeout. Here a connection whose handler
has ``WAITING_FRAMES`` frames waiting is not read until it has worked them down (TCP then holds
the client back), and once the server has closed a socket it parses nothing more the client
sent: a flooder costs the few frames that got him closed. The kernel's receive buffer is
``SOCKET_RECEIVE_BUFFER_BYTES`` (0: its own tuning, up to ``net.ipv4.tcp_rmem``).

A frame for a client that has already left is dropped rather than raised.
"""

from __future__ import annotations

import logging
import socket

from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from django.conf import settings
from twisted.internet.interfaces import IPushProducer
from zope.interface import implementer

logger = logging.getLogger(__name__)
# More frames than a client within its limits ever has waiting (its bursts are twice its rate a
# second); reading goes on once half of them are handled.
WAITING_FRAMES = int(4 * settings.SOCKET_RATE_PER_SECOND)
# How often a connection that is not read looks whether its handler has caught up.
WAITING_CHECK_SECONDS = 0.01


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
    reading_stopped = False

    def connectionMade(self) -> None:
        super().connectionMade()
        producer = getattr(self.transport, "producer", None)
        if producer is not None:
            self.transport.unregisterProducer()
        self.backlog = _Backlog(producer)
        self.transport.registerProducer(self.backlog, True)
        for option, size in (
            (socket.SO_SNDBUF, settings.SOCKET_SEND_BUFFER_BYTES),
            (socket.SO_RCVBUF, settings.SOCKET_RECEIVE_BUFFER_BYTES),
        ):
            if size:
                self.transport.getHandle().setsockopt(socket.SOL_SOCKET, option, size)

    def serverSend(self, content, binary=False) -> None:
        if self.state in (self.STATE_CLOSING, self.STATE_CLOSED):
            # The client left while its state was on the way: nobody is there to read it.
            # Autobahn would raise, and the exception would end the socket's handler before
            # it handled the disconnect (its presence and groups would never be cleaned up).
            return
        if self.backlog is not None and self.backlog.full:
            self.backlog.waiting += len(content)
            if self.backlog.waiting > settings.SOCKET_BACKLOG_BYTES:
                if self.state != self.STATE_CLOSED:
                    logger.warning("dropped a WebSocket client that does not read: %s", self)
                    self.dropConnection(abort=True)
                return
        super().serverSend(content, binary)

    def onMessage(self, payload, isBinary) -> None:
        if self.state != self.STATE_OPEN:
            # The server closed the socket and the client still sends: nothing more is read (the
            # close handshake's timeout drops the connection).
            self.stop_reading()
            return
        super().onMessage(payload, isBinary)
        if not self.reading_stopped and self.application_queue.qsize() >= WAITING_FRAMES:
            self.stop_reading()
            self.read_when_handled()

    def stop_reading(self) -> None:
        self.reading_stopped = True
        self.transport.pauseProducing()

    def processData(self) -> bool:
        # Autobahn parses everything read so far in one go: the rest waits here, unparsed.
        if self.reading_stopped:
            self.transport.pauseProducing()  # again, in case anything resumed the transport
            return False
        return super().processData()

    def read_when_handled(self) -> None:
        """Read on once the handler has worked down its waiting frames; never again once the
        server has closed the socket (the close handshake's timeout then drops it)."""
        from twisted.internet import reactor  # the one Daphne installed

        if self.state != self.STATE_OPEN:
            return
        if self.application_queue.qsize() > WAITING_FRAMES // 2:
            reactor.callLater(WAITING_CHECK_SECONDS, self.read_when_handled)
            return
        self.reading_stopped = False
        self.transport.resumeProducing()
        self.consumeData()


def install() -> None:
    """Make Daphne build every WebSocket connection with the caps."""
    WebSocketFactory.protocol = BoundedWebSocketProtocol
