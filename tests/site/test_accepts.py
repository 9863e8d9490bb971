"""Web processes sharing one listening socket each take one waiting connection per wakeup."""

from __future__ import annotations

import socket

import pytest
from twisted.internet import protocol, tcp
from twisted.internet.selectreactor import SelectReactor

from durak_site import accepts


class Counted(protocol.Factory):
    protocol = protocol.Protocol

    def __init__(self) -> None:
        self.built = 0

    def buildProtocol(self, address):  # noqa: N802 - Twisted's name
        self.built += 1
        return super().buildProtocol(address)


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


def test_a_wakeup_takes_one_waiting_connection_and_leaves_the_rest_to_the_others(
    listening_port,
):
    port, factory = listening_port
    accepts.install()
    port.doRead()
    assert factory.built == 1
    # Twisted raises its count after a wakeup that used it all; the next one still takes one.
    port.doRead()
    assert factory.built == 2
