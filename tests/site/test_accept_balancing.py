"""Web processes sharing one listening socket each take one waiting connection per wakeup, and
leave the next one to a live process that holds fewer."""

from __future__ import annotations

import socket
import time

import pytest
from twisted.internet import error, protocol, tcp
from twisted.internet.selectreactor import SelectReactor
from twisted.python import failure

from durak_site.sockets import accept_balancing


class Counted(protocol.Factory):
    protocol = protocol.Protocol

    def __init__(self) -> None:
        self.built = 0

    def buildProtocol(self, address):  # noqa: N802 - Twisted's name
        self.built += 1
        return super().buildProtocol(address)


@pytest.fixture(autouse=True)
def twisted_as_it_was(monkeypatch):
    # install() patches Twisted's port class; the next test starts from Twisted's own.
    monkeypatch.setattr(tcp.Port, "doRead", tcp.Port.doRead)
    monkeypatch.setattr(tcp.Port, "transport", tcp.Server)


@pytest.fixture
def listening_port():
    # A reactor that is never run: the port registers with it and is woken by hand.
    factory = Counted()
    port = tcp.Port(0, factory, interface="127.0.0.1", reactor=SelectReactor())
    port.startListening()
    clients = [socket.create_connection(("127.0.0.1", port.getHost().port)) for _ in range(5)]
    try:
        yield port, factory
    finally:
        for client in clients:
            client.close()
        port.socket.close()


@pytest.fixture
def shares(tmp_path):
    """The rows of web processes over one table, as each of them sees it."""
    return lambda processes: [
        accept_balancing.ConnectionShare(tmp_path / "share", slot) for slot in range(processes)
    ]


def test_a_wakeup_takes_one_waiting_connection_and_leaves_the_rest_to_the_others(
    listening_port,
):
    port, factory = listening_port
    accept_balancing.install()
    port.doRead()
    assert factory.built == 1
    # Twisted raises its count after a wakeup that used it all; the next one still takes one.
    port.doRead()
    assert factory.built == 2


def test_a_process_leaves_the_next_connection_to_a_live_one_holding_fewer(shares):
    first, second, third = shares(3)
    for share in (first, second, third):
        share.beat()
    for _ in range(accept_balancing.SLACK):
        first.opened()
    now = time.monotonic()
    assert first.leaves_next_to_others(now)
    assert not second.leaves_next_to_others(now)
    # Within the slack each takes what comes.
    second.opened()
    third.opened()
    assert not first.leaves_next_to_others(time.monotonic())
    # One that stopped beating (killed, or its loop stuck) is not waited for.
    second.opened()
    third.opened()
    first.opened()
    first.opened()
    assert first.leaves_next_to_others(time.monotonic())
    assert not first.leaves_next_to_others(time.monotonic() + accept_balancing.ALIVE_SECONDS + 0.1)
    # Nor one that left; what it held counts no more.
    second.leave()
    third.leave()
    assert not first.leaves_next_to_others(time.monotonic())
    assert first.alive_connections(time.monotonic()) == {0: 4}
    # The connections its shutdown closes afterwards do not bring it back.
    second.closed()
    assert first.alive_connections(time.monotonic()) == {0: 4}
    # Restarted, it takes the next ones; but a row beaten on a clock ahead of this one (left
    # from before a reboot) is not alive.
    restarted = shares(3)[2]
    restarted.beat()
    assert first.leaves_next_to_others(time.monotonic())
    assert not first.leaves_next_to_others(time.monotonic() - 1)


def test_a_busier_process_waits_a_moment_then_takes_what_no_other_took(listening_port, shares):
    port, factory = listening_port
    mine, other = shares(2)
    other.beat()
    accept_balancing.install(mine)
    port.doRead()
    port.doRead()
    assert factory.built == 2 and mine.connections == 2
    # Two more than the other: the third is left to it for a moment.
    port.doRead()
    assert factory.built == 2
    assert port not in port.reactor.getReaders()
    (late,) = port.reactor.getDelayedCalls()
    assert late.getTime() - port.reactor.seconds() <= accept_balancing.HEAD_START_SECONDS
    # The other did not take it: this process does, and reads the socket again.
    late.func(*late.args)
    assert factory.built == 3 and mine.connections == 3
    assert port in port.reactor.getReaders()
    # A connection that closes counts no more.
    for transport in [reader for reader in port.reactor.getReaders() if reader is not port]:
        transport.connectionLost(failure.Failure(error.ConnectionDone()))
    assert mine.connections == 0
