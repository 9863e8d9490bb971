"""Every WebSocket goes through the origin check and refuses anonymous users."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from durak_site.asgi import application
from tests.players import create_player, session_cookie

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

SOCKET_PATHS = ["/ws/lobby/", "/ws/table/1/"]
SAME_ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


@database_sync_to_async
def _session_cookie_for(nickname: str) -> bytes:
    return session_cookie(create_player(nickname=nickname)).encode()


@pytest.mark.parametrize("path", SOCKET_PATHS)
async def test_foreign_origin_is_refused(path):
    cookie = await _session_cookie_for("Vera")
    communicator = WebsocketCommunicator(
        application,
        path,
        headers=[
            (b"origin", b"https://evil.example"),
            (b"host", b"localhost"),
            (b"cookie", cookie),
        ],
    )
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.parametrize("path", SOCKET_PATHS)
async def test_anonymous_user_is_refused(path):
    communicator = WebsocketCommunicator(application, path, headers=SAME_ORIGIN)
    connected, code = await communicator.connect()
    if connected:
        # Accepted only to tell the client why: the close must follow at once.
        message = await communicator.receive_output(timeout=2)
        assert message["type"] == "websocket.close"
        code = message.get("code")
    assert code == 4401


async def test_logged_in_user_from_our_origin_is_accepted():
    cookie = await _session_cookie_for("Gleb")
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()


@pytest.mark.slow
async def test_an_idle_socket_stays_open():
    """Nothing is said for longer than the Redis client's default read timeout (5 s)."""
    cookie = await _session_cookie_for("Tihon")
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
    )
    connected, _ = await communicator.connect()
    assert connected
    first = await communicator.receive_json_from(timeout=5)
    assert first["type"] == "tables"
    await asyncio.sleep(7)
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong"}
    await communicator.disconnect()
