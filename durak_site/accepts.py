"""Web processes that share one listening socket share its new connections too.

Every process waiting on the shared socket is woken by a new connection, and Twisted then
accepts up to a hundred waiting connections at once (more, the more it finds). So the first
process to wake takes a whole crowd of sockets (a table's players arriving, a restart's
reconnects) while the others stay idle: 94 of 100 sockets landed in one of two processes. Taking
one connection per wakeup leaves each next one to whichever process is free first.
"""

from __future__ import annotations

from twisted.internet import tcp

ACCEPTS_PER_WAKEUP = 1


def install() -> None:
    """Make the listening ports of this process accept one connection per wakeup."""
    accept = tcp.Port.doRead
    if getattr(accept, "one_per_wakeup", False):
        return

    def doRead(port: tcp.Port):  # noqa: N802 - Twisted's name
        # Twisted raises its own count after every wakeup that used it all: set it each time.
        port.numberAccepts = ACCEPTS_PER_WAKEUP
        return accept(port)

    doRead.one_per_wakeup = True
    tcp.Port.doRead = doRead
