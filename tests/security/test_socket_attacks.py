"""Sockets cannot be crashed, leaked, flooded, outlive their session, or be opened from a
foreign page (docs/security.md)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
import time
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
import redis
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.frames import Frame, Opcode

from durak_site.sockets import open_limits
from games import consumers, presence
from tests.players import session_cookie
from tests.security.conftest import (
    BACKLOG_BYTES,
    Browser,
    close_code,
    db,
    deal_again,
    first_message,
    open_socket,
    open_table,
    play_moves,
    players,
    receive,
)
from tests.servers import test_database_url, wait_until_database_quiet

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

DEEP_FRAME = "[" * 2000 + "]" * 2000


def open_slots(user) -> int:
    """The user's sockets counted in Redis (live or not)."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return client.zcard(presence.user_key(user.pk))
    finally:
        client.close()


async def slots_drop_to(user, wanted: int, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    while (count := open_slots(user)) != wanted and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return count


async def test_a_deeply_nested_frame_is_answered_and_leaks_nothing(server):
    (user,) = await players(1)
    table = await open_table([user, *(await players(1))])
    # More sockets than the user may hold at once, each hit with the frame that used to kill it.
    for _ in range(consumers.SOCKETS_PER_USER + 2):
        socket_ = await open_socket(server, user, f"/ws/table/{table.pk}/")
        await receive(socket_, "state")
        await socket_.send(DEEP_FRAME)
        assert (await receive(socket_, "error"))["code"] == "bad_message"
        await socket_.send(json.dumps({"type": "ping"}))
        # Still usable: the ping is answered. The table's state telling that the user is back
        # (his previous socket closed) may come first.
        await receive(socket_, "pong")
        await socket_.close()
    assert await slots_drop_to(user, 0) == 0
    lobby = await open_socket(server, user, "/ws/lobby/")
    assert (await receive(lobby))["type"] == "tables"  # not locked out with 4429
    await lobby.close()


async def test_a_handler_the_server_kills_gives_back_what_it_held(server):
    users = await players(2)
    table = await open_table(users)
    # The player the game waits for: his move goes to the game (another's is refused at once).
    for mover in users:
        socket_ = await open_socket(server, mover, f"/ws/table/{table.pk}/")
        state = await receive(socket_, "state")
        if state["view"]["legal_actions"]:
            break
        await socket_.close()
        assert await slots_drop_to(mover, 0) == 0
        await asyncio.to_thread(wait_until_database_quiet, test_database_url())  # his departure
    log = Path(server.log.name)
    kills_before = log.read_text().count("took too long to shut down and was killed")
    # Hold the table's row lock: the move below waits for it, and so its handler cannot end
    # when the client leaves; the server gives it CLOSE_TIMEOUT_SECONDS, then cancels it.
    with psycopg.connect(test_database_url()) as blocker:
        blocker.execute("SELECT id FROM games_table WHERE id = %s FOR UPDATE", [table.pk])
        await socket_.send(
            json.dumps({"type": "act", "action": {"type": "take"}, "version": state["version"]})
        )
        await socket_.close()
        deadline = time.monotonic() + 20
        while log.read_text().count("took too long to shut down and was killed") == kills_before:
            assert time.monotonic() < deadline, "the server never killed the handler"
            await asyncio.sleep(0.2)
        # The killed handler's slot and heartbeat are gone although the move still waits.
        assert await slots_drop_to(mover, 0) == 0
        blocker.rollback()


async def test_a_flooding_socket_is_warned_once_then_closed(server):
    (user,) = await players(1)
    socket_ = await open_socket(server, user, "/ws/lobby/")
    await receive(socket_, "tables")
    for _ in range(int(consumers.RATE_BURST) + consumers.FLOOD_STRIKES + 30):
        await socket_.send(json.dumps({"type": "ping"}))
    kinds: list[str] = []
    try:
        while True:
            kinds.append(json.loads(await asyncio.wait_for(socket_.recv(), 10))["type"])
    except Exception:  # the close ends the loop
        pass
    assert kinds.count("error") == 1
    assert socket_.close_code == consumers.CLOSE_FLOODING


async def test_a_client_that_never_reads_is_dropped(server):
    users = await players(6)
    table = await open_table(users)
    # A client with a tiny receive window that stops reading after the first state.
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", server.port))
    cookie = await db(session_cookie)(users[0])
    client = await connect(
        f"ws://127.0.0.1:{server.port}/ws/table/{table.pk}/",
        sock=raw,
        origin=server.url,
        additional_headers={"Cookie": cookie},
        max_queue=1,
        proxy=None,
    )
    await receive(client, "state")
    # Every move sends each socket at the table a state, which this client never reads; the
    # players go on with rematches until it has been sent more than its buffers hold.
    moves = 0
    while open_slots(users[0]) and moves < 1000:
        played = await play_moves(table, 10)
        if not played:
            await deal_again(table, users)
        moves += played
    assert await slots_drop_to(users[0], 0) == 0, f"still connected after {moves} moves"
    print(f"dropped after {moves} moves with a cap of {BACKLOG_BYTES} bytes")
    raw.close()


async def _open_until_refused(server, users: list, per_user: int, rate: float, burst: float):
    """Open and close lobby sockets (`per_user` for each user in turn) until one is refused;
    how many were accepted, and the most the limit allows in the time it took."""
    started = time.monotonic()
    for number in range(int(burst) * 3):
        socket_ = await open_socket(server, users[number // per_user], "/ws/lobby/")
        greeting = await first_message(socket_)
        await socket_.close()
        if not isinstance(greeting, dict):
            assert greeting == consumers.CLOSE_OPENED_TOO_OFTEN
            return number, burst + (time.monotonic() - started) * rate + 1
        assert greeting["type"] == "tables"
    raise AssertionError("no socket was refused")


async def test_socket_opens_are_rate_limited_per_user(server):
    users = await players(1)
    accepted, allowed = await _open_until_refused(
        server, users, 1000, consumers.OPENS_PER_SECOND_USER, consumers.OPENS_BURST_USER
    )
    assert consumers.OPENS_BURST_USER <= accepted <= allowed


async def test_socket_opens_are_rate_limited_per_address(server):
    per_user = int(consumers.OPENS_BURST_USER) - 1  # each user stays within his own limit
    users = await players(3 * int(open_limits.OPENS_BURST_ADDRESS) // per_user + 1)
    accepted, allowed = await _open_until_refused(
        server,
        users,
        per_user,
        open_limits.OPENS_PER_SECOND_ADDRESS,
        open_limits.OPENS_BURST_ADDRESS,
    )
    assert open_limits.OPENS_BURST_ADDRESS <= accepted <= allowed


@pytest.mark.parametrize("limit", ["session", "address"])
async def test_an_open_over_a_limit_is_refused_before_the_session_is_read(server, limit):
    (user,) = await players(1)
    cookie = await db(session_cookie)(user)
    # Spend the bucket as earlier opens would have (the server shares this Redis): the session's,
    # or the address's with opens that carry no session.
    opener = {"client": ["127.0.0.1", 0], "headers": []}
    if limit == "session":
        opener["headers"] = [(b"cookie", cookie.encode())]
    while await open_limits.opening_allowed(opener):
        pass
    # An open that looked its session up would now wait for the lock.
    with psycopg.connect(test_database_url()) as blocker:
        blocker.execute("LOCK TABLE django_session IN ACCESS EXCLUSIVE MODE")
        opened_at = time.monotonic()
        socket_ = await open_socket(server, user, "/ws/lobby/", cookie=cookie)
        assert await first_message(socket_, timeout=5) == consumers.CLOSE_OPENED_TOO_OFTEN
        blocker.rollback()
    # Answered late, so that a client reopening at once cannot make the server refuse it often.
    assert time.monotonic() - opened_at >= open_limits.REFUSAL_DELAY_SECONDS


async def test_a_client_sending_faster_than_it_is_served_is_not_read_on(server):
    (user,) = await players(1)
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16 * 1024)
    raw.connect(("127.0.0.1", server.port))
    client = await connect(
        f"ws://127.0.0.1:{server.port}/ws/lobby/",
        sock=raw,
        origin=server.url,
        additional_headers={"Cookie": await db(session_cookie)(user)},
        max_queue=None,  # reads every answer, up to the close
        proxy=None,
    )
    await receive(client, "tables")
    frame = json.dumps({"type": "ping", "padding": "x" * 4000})
    flood_bytes = 8 * 2**20
    sent = 0
    # Sending blocks once the server stops reading; it fails once the server drops the client.
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        while sent < flood_bytes:
            await asyncio.wait_for(client.send(frame), 3)
            sent += len(frame)
    # What the buffers on the way hold, a read or two and the frames that got it closed.
    print(f"{sent} bytes sent before the server stopped reading")
    assert sent < flood_bytes // 8
    assert await close_code(client) == consumers.CLOSE_FLOODING
    raw.close()


async def test_a_client_that_goes_on_sending_after_its_close_is_not_read(server):
    (user,) = await players(1)
    cookie = await db(session_cookie)(user)
    opener = {"client": ["127.0.0.1", 0], "headers": [(b"cookie", cookie.encode())]}
    while await open_limits.opening_allowed(opener):  # the server will close the next socket
        pass
    # A client by hand that never answers the server's close and goes on sending.
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16 * 1024)
    raw.connect(("127.0.0.1", server.port))
    reader, writer = await asyncio.open_connection(sock=raw)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws/lobby/ HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {server.url}\r\nCookie: {cookie}\r\n\r\n".encode()
    )
    assert b" 101 " in await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    close = await asyncio.wait_for(reader.readexactly(4), 10)
    assert close[0] == 0x88 and int.from_bytes(close[2:4]) == consumers.CLOSE_OPENED_TOO_OFTEN
    frame = Frame(Opcode.TEXT, json.dumps({"type": "ping"}).encode())
    flood = frame.serialize(mask=True, extensions=[]) * (8 * 2**20 // 30)
    writer.write(flood)
    left_client = 0
    deadline = time.monotonic() + 5
    while not writer.transport.is_closing() and time.monotonic() < deadline:
        left_client = max(left_client, len(flood) - writer.transport.get_write_buffer_size())
        await asyncio.sleep(0.01)
    print(f"{left_client} of {len(flood)} bytes left the client")
    # What the kernel's buffers on the way and one read hold: the server stopped reading at the
    # first frame (parsing for the second before the close handshake's timeout took far more).
    assert left_client < 256 * 1024
    # ...and dropped the connection, which it would otherwise keep open for the client's answer.
    assert writer.transport.is_closing()
    writer.close()


async def test_logging_out_closes_the_sessions_sockets(server):
    users = await players(2)
    table = await open_table(users)
    browser = Browser(server)
    assert (await asyncio.to_thread(browser.log_in, users[0]))[0] == 302
    cookie = f"sessionid={browser.cookies['sessionid']}"
    other_device = await open_socket(server, users[0], "/ws/lobby/")
    await receive(other_device, "tables")
    socket_ = await open_socket(server, users[0], f"/ws/table/{table.pk}/", cookie=cookie)
    await receive(socket_, "state")
    status, _page, _headers = await asyncio.to_thread(browser.submit, "/accounts/logout/", {})
    assert status == 302
    assert await close_code(socket_) == consumers.CLOSE_UNAUTHENTICATED
    again = await open_socket(server, users[0], f"/ws/table/{table.pk}/", cookie=cookie)
    assert await close_code(again) == consumers.CLOSE_UNAUTHENTICATED
    # The user's other session is not touched.
    await other_device.send(json.dumps({"type": "ping"}))
    assert (await receive(other_device))["type"] == "pong"
    await other_device.close()


@db
def _change_password(user) -> None:
    user.set_password("Another-Horse-43")
    user.save()


@db
def _deactivate(user) -> None:
    user.is_active = False
    user.save()


@pytest.mark.parametrize("change", [_change_password, _deactivate])
async def test_a_new_password_or_a_deactivation_closes_the_users_sockets(server, change):
    users = await players(2)
    table = await open_table(users)
    socket_ = await open_socket(server, users[0], f"/ws/table/{table.pk}/")
    await receive(socket_, "state")
    await change(users[0])
    assert await close_code(socket_) == consumers.CLOSE_UNAUTHENTICATED


def _delete_session(session_key: str) -> None:
    # Without any signal, as an expired session's cleanup would.
    Session.objects.filter(session_key=session_key).delete()


def _expire_session(session_key: str) -> None:
    Session.objects.filter(session_key=session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )


@pytest.mark.parametrize("end", [_delete_session, _expire_session])
async def test_a_socket_whose_session_ended_otherwise_closes_at_its_next_message(server, end):
    users = await players(2)
    table = await open_table(users)
    cookie = await db(session_cookie)(users[0])
    socket_ = await open_socket(server, users[0], f"/ws/table/{table.pk}/", cookie=cookie)
    await receive(socket_, "state")
    await db(end)(cookie.split("=", 1)[1])
    # Pings at a pace within the rate limit, until the next session check closes the socket.
    deadline = time.monotonic() + consumers.SESSION_RECHECK_SECONDS + 10
    while time.monotonic() < deadline:
        try:
            await socket_.send(json.dumps({"type": "ping"}))
            await asyncio.wait_for(socket_.recv(), 1)
        except ConnectionClosed:
            break
        except TimeoutError:
            continue
        await asyncio.sleep(0.25)
    assert await close_code(socket_) == consumers.CLOSE_UNAUTHENTICATED


@pytest.mark.parametrize(
    "origin",
    ["http://127.0.0.1:9999", "https://127.0.0.1:{port}", "http://localhost:{port}", "null"],
)
async def test_a_socket_from_another_origin_is_refused(server, origin):
    (user,) = await players(1)
    with pytest.raises(InvalidStatus) as refused:
        await open_socket(server, user, "/ws/lobby/", origin=origin.format(port=server.port))
    assert refused.value.response.status_code == 403


async def test_a_socket_from_the_sites_own_origin_is_accepted(server):
    (user,) = await players(1)
    socket_ = await open_socket(
        server, user, "/ws/lobby/", origin=f"http://127.0.0.1:{server.port}"
    )
    assert (await receive(socket_))["type"] == "tables"
    await socket_.close()
