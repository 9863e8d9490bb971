"""What reaches a WebSocket connection once its client has left."""

import pytest

from durak_site.sockets.flow_control import BoundedWebSocketProtocol


@pytest.mark.parametrize("state", ["STATE_CLOSING", "STATE_CLOSED"])
def test_a_frame_for_a_client_that_left_is_dropped_without_an_error(state):
    # Autobahn raises Disconnected here, which ended the socket's handler before it handled the
    # disconnect.
    protocol = BoundedWebSocketProtocol()
    protocol.state = getattr(protocol, state)
    protocol.serverSend('{"type":"state"}')


def test_a_frame_for_an_open_connection_is_sent():
    protocol = BoundedWebSocketProtocol()
    protocol.state = protocol.STATE_OPEN
    protocol.client_addr = ["127.0.0.1", 50000]
    sent = []
    protocol.sendMessage = lambda payload, binary=False: sent.append(payload)
    protocol.serverSend('{"type":"state"}')
    assert sent == [b'{"type":"state"}']
