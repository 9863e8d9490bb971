"""Web processes that share one listening socket share its new connections too.

Every process waiting on the shared socket is woken by a new connection, and Twisted then
accepts up to a hundred waiting connections at once (more, the more it finds). So the first
process to wake takes a whole crowd of sockets (a table's players arriving, a restart's
reconnects) while the others stay idle. Taking one connection per wakeup leaves each next one
to whichever process is free first.

That still left the sockets unevenly shared (a process started beside one already serving took
hardly any of the next ones), and a socket's moves are worked by its process for as long as it
stays open, so the busier process's queue was the tail of every move.
The web processes of a machine therefore keep a small table in a file they all map
(``ConnectionShare``, at ``WEB_SHARE_FILE``, a row each) of each one's open connections and
latest beat. A process holding ``SLACK`` or more connections beyond the fewest of the others
lets those take the next one: it stops reading the socket for ``HEAD_START_SECONDS`` and then
accepts whatever is still waiting, so a busy or stuck process never holds a connection up for
longer than that. A process that has not beaten for ``ALIVE_SECONDS`` (killed, or its event
loop stuck) is not waited for, and a restarted one takes the reconnects of the sockets its
predecessor lost.
"""

from __future__ import annotations

import mmap
import os
import struct
import time

from twisted.internet import tcp

ACCEPTS_PER_WAKEUP = 1
# Read by each web process: the shared table's file and this process's row in it.
SHARE_FILE_VARIABLE = "WEB_SHARE_FILE"
SHARE_SLOT_VARIABLE = "WEB_SHARE_SLOT"
SLACK = 2
HEAD_START_SECONDS = 0.01
BEAT_SECONDS = 0.1
ALIVE_SECONDS = 0.5
# One row per web process of the machine: open connections, latest beat (the system's
# monotonic clock, which every process reads alike).
_ROW = struct.Struct("qd")
ROWS = 64


class ConnectionShare:
    """The open connections of a machine's web processes, in a file they all map; this
    process's row is `slot`."""

    def __init__(self, path: str | os.PathLike, slot: int) -> None:
        if not 0 <= slot < ROWS:
            raise ValueError(f"a web process's row is from 0 to {ROWS - 1}, not {slot}")
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            # Every process wants the same size, so none ever shrinks the file under another.
            if os.fstat(descriptor).st_size < ROWS * _ROW.size:
                os.ftruncate(descriptor, ROWS * _ROW.size)
            self.memory = mmap.mmap(descriptor, ROWS * _ROW.size)
        finally:
            os.close(descriptor)
        self.slot = slot
        self.connections = 0
        self.serving = True

    def _write(self, beat: float) -> None:
        # Once it has left, the connections its shutdown closes must not bring its row back.
        if self.serving:
            _ROW.pack_into(self.memory, self.slot * _ROW.size, self.connections, beat)

    def opened(self) -> None:
        self.connections += 1
        self._write(time.monotonic())

    def closed(self) -> None:
        self.connections -= 1
        self._write(time.monotonic())

    def beat(self) -> None:
        self._write(time.monotonic())

    def leave(self) -> None:
        """This process stops serving: the others no longer wait for it."""
        self.connections = 0
        self._write(0.0)
        self.serving = False

    def alive_connections(self, now: float) -> dict[int, int]:
        """Open connections of each process that beat recently, by row."""
        return {
            row: connections
            for row, (connections, beat) in enumerate(_ROW.iter_unpack(self.memory))
            if 0 <= now - beat <= ALIVE_SECONDS
        }

    def leaves_next_to_others(self, now: float) -> bool:
        """Whether another live process holds so many fewer connections that it should take
        the next one."""
        others = [n for row, n in self.alive_connections(now).items() if row != self.slot]
        return bool(others) and self.connections >= min(others) + SLACK


def share_environment(path: str | os.PathLike, slot: int) -> dict[str, str]:
    """What a web process's environment holds to take row `slot` of the table at `path`."""
    return {SHARE_FILE_VARIABLE: str(path), SHARE_SLOT_VARIABLE: str(slot)}


def install(share: ConnectionShare | None = None) -> None:
    """Make the listening ports of this process accept one connection per wakeup, and leave
    connections to less loaded web processes when given their `share`."""
    accept = getattr(tcp.Port.doRead, "accepts_one", tcp.Port.doRead)

    def accept_one(port: tcp.Port) -> None:
        # Twisted raises its own count after every wakeup that used it all: set it each time.
        port.numberAccepts = ACCEPTS_PER_WAKEUP
        accept(port)

    def doRead(port: tcp.Port) -> None:  # noqa: N802 - Twisted's name
        if share is not None and share.leaves_next_to_others(time.monotonic()):
            port.stopReading()
            port.reactor.callLater(HEAD_START_SECONDS, accept_late, port)
            return
        accept_one(port)

    def accept_late(port: tcp.Port) -> None:
        if port.connected and not port.disconnecting:
            port.startReading()
            accept_one(port)  # nothing when another process took it meanwhile

    doRead.accepts_one = accept
    tcp.Port.doRead = doRead
    tcp.Port.transport = _counted_server(share) if share is not None else tcp.Server


def install_in_web_process() -> None:
    """``install``, with the share named in the environment, if any; its beats come from the
    reactor Daphne serves with, so a process whose loop is stuck is not waited for."""
    if SHARE_FILE_VARIABLE not in os.environ:
        install()
        return
    share = ConnectionShare(
        os.environ[SHARE_FILE_VARIABLE], int(os.environ.get(SHARE_SLOT_VARIABLE, "0"))
    )
    install(share)
    from twisted.internet import reactor, task

    reactor.callWhenRunning(task.LoopingCall(share.beat).start, BEAT_SECONDS)
    reactor.addSystemEventTrigger("before", "shutdown", share.leave)


def _counted_server(share: ConnectionShare) -> type[tcp.Server]:
    class CountedServer(tcp.Server):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            share.opened()

        def connectionLost(self, reason) -> None:  # noqa: N802 - Twisted's name
            share.closed()
            super().connectionLost(reason)

    return CountedServer
