"""Attacks over real connections: a Daphne process serves the test database, and the tests talk
to it with real WebSocket and HTTP clients, as an attacker's scripts would."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from channels.db import database_sync_to_async
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from games import services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, Seat
from tests.games.conftest import (  # noqa: F401 - fixtures
    STAKE,
    create_player,
    fresh_channel_layer,
    no_presence_left,
)
from tests.players import PASSWORD, session_cookie, totp_code
from tests.servers import (
    BASE_DIR,
    LiveServer,
    server_env,
    test_database_url,
    wait_until_database_quiet,
)

# Small enough that a client that does not read passes it within seconds.
BACKLOG_BYTES = 64 * 1024
# The kernel's buffers of each socket: small, so that what they hold is small beside a flood.
BUFFER_BYTES = 16 * 1024
# Daphne's wait for a handler after its client left, before it cancels the handler.
CLOSE_TIMEOUT_SECONDS = 2

db = database_sync_to_async


@pytest.fixture(scope="session")
def server(django_db_setup, django_db_blocker) -> Iterator[LiveServer]:
    with django_db_blocker.unblock():
        env = server_env(
            SOCKET_BACKLOG_BYTES=str(BACKLOG_BYTES),
            SOCKET_SEND_BUFFER_BYTES=str(BUFFER_BYTES),
            SOCKET_RECEIVE_BUFFER_BYTES=str(BUFFER_BYTES),
        )
    live = LiveServer(
        env,
        BASE_DIR / "test-artifacts" / "security-daphne.log",
        ("--application-close-timeout", str(CLOSE_TIMEOUT_SECONDS)),
    )
    live.start()
    try:
        yield live
    finally:
        live.close()


@pytest.fixture(autouse=True)
def server_done_with_the_database(request, django_db_blocker) -> Iterator[None]:
    """After each test that used a server process, wait until it has finished with the
    database (a socket closed at the end of a test still records its departure), so that
    emptying the tables for the next test never deadlocks with them."""
    yield
    if not any(isinstance(value, LiveServer) for value in request.node.funcargs.values()):
        return
    with django_db_blocker.unblock():
        url = test_database_url()
    wait_until_database_quiet(url)


@db
def players(count: int, **options) -> list:
    return [create_player(**options) for _ in range(count)]


def play(table, count: int) -> int:
    """Bots play up to `count` moves of the table's game through the services; how many."""
    for played in range(count):
        game = Game.objects.filter(table=table).order_by("-number").first()
        if game.status != Game.Status.PLAYING:
            return played
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        user = Seat.objects.get(table=table, position=seat, left_at__isnull=True).user
        services.game_apply_action(
            game_id=game.pk,
            user=user,
            action=choose_action(engine, seat),
            expected_version=game.version,
        )
    return count


play_moves = db(play)


@db
def deal_again(table, users: list) -> None:
    """The table's players all confirm the rematch of its finished game: the next is dealt."""
    game = Game.objects.filter(table=table).order_by("-number").first()
    for user in users:
        services.rematch_confirm(game_id=game.pk, user=user)


@db
def open_table(users: list, seats: int | None = None):
    table = services.table_create(user=users[0], stake=STAKE, seats=seats or len(users))
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    return table


class Browser:
    """A plain HTTP client with its own cookies, sending the site's forms with their CSRF token
    (as a browser would), optionally through a proxy that names it in X-Forwarded-For."""

    def __init__(self, server: LiveServer, *, forwarded_for: str | None = None) -> None:
        self.server = server
        self.cookies: dict[str, str] = {}
        self.headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}

    def request(self, method: str, path: str, form: dict[str, str] | None = None):
        """(status, body, headers) of one request; redirects are not followed."""
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        headers = {**self.headers}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, text, response.headers

    def get(self, path: str):
        return self.request("GET", path)

    def submit(self, path: str, form: dict[str, str], *, form_page: str | None = None):
        """GET the form's page (`path` unless given) for its CSRF token, then POST the form."""
        _status, page, _headers = self.get(form_page or path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        return self.request("POST", path, {**form, "csrfmiddlewaretoken": token.group(1)})

    def log_in(self, user, password: str = PASSWORD):
        """Sign in; a member of staff then gives his authenticator app's code, as asked."""
        answer = self.submit("/accounts/login/", {"login": user.email, "password": password})
        if answer[0] == 302 and answer[2]["Location"] == "/accounts/2fa/authenticate/":
            return self.submit("/accounts/2fa/authenticate/", {"code": totp_code()})
        return answer


async def open_socket(
    server: LiveServer, user, path: str, *, origin: str | None = None, cookie: str | None = None
) -> ClientConnection:
    """A socket of the user's browser (or of the given cookie) from the site's own page."""
    if cookie is None:
        cookie = await db(session_cookie)(user)
    return await connect(
        f"ws://127.0.0.1:{server.port}{path}",
        origin=origin or server.url,
        additional_headers={"Cookie": cookie},
        open_timeout=10,
        proxy=None,
    )


async def receive(socket: ClientConnection, wanted: str | None = None, timeout: float = 10) -> dict:
    """The next message (of type `wanted`, skipping others)."""
    while True:
        message = json.loads(await _recv(socket, timeout))
        if wanted is None or message["type"] == wanted:
            return message


async def _recv(socket: ClientConnection, timeout: float) -> Any:
    return await asyncio.wait_for(socket.recv(), timeout)


async def close_code(socket: ClientConnection, timeout: float = 10) -> int | None:
    """Read until the server closes the socket; its close code (None if it sent no close frame)."""
    try:
        while True:
            await _recv(socket, timeout)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None


async def first_message(socket: ClientConnection, timeout: float = 10) -> dict | int | None:
    """The server's first message, or its close code if it closed the socket instead."""
    try:
        return json.loads(await _recv(socket, timeout))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None
