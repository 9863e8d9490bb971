"""Error reports: with SENTRY_DSN set, a web process sends its errors to Sentry tagged with the
table and game, and nothing personal goes with them. A small local server stands in for
Sentry's ingest endpoint and reads its envelopes."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import sentry_sdk

from durak_site import asgi
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, Seat
from tests.players import PASSWORD
from tests.security.conftest import Browser, open_socket, open_table, players, receive
from tests.servers import BASE_DIR, LiveServer, server_env

pytestmark = pytest.mark.django_db(transaction=True)


def envelope_items(body: bytes) -> list[tuple[dict, bytes]]:
    """The items of one envelope: a header line, then each item's header line and payload
    (``length`` bytes when the header gives it, else up to the next newline)."""
    _envelope_header, _, rest = body.partition(b"\n")
    items = []
    while rest.strip():
        header_line, _, rest = rest.partition(b"\n")
        header = json.loads(header_line)
        if "length" in header:
            payload, rest = rest[: header["length"]], rest[header["length"] + 1 :]
        else:
            payload, _, rest = rest.partition(b"\n")
        items.append((header, payload))
    return items


class SentryStandIn(ThreadingHTTPServer):
    """Accepts envelopes at /api/<project>/envelope/ and keeps the events among them."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _EnvelopeHandler)
        self.events: list[dict] = []
        self.raw: list[bytes] = []

    @property
    def dsn(self) -> str:
        return f"http://publickey@127.0.0.1:{self.server_address[1]}/1"

    def wait_for(self, wanted, timeout: float = 20) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in list(self.events):
                if wanted(event):
                    return event
            time.sleep(0.05)
        raise AssertionError(f"no such event among {len(self.events)}: {self.events}")


class _EnvelopeHandler(BaseHTTPRequestHandler):
    server: SentryStandIn

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        assert self.path == "/api/1/envelope/", self.path
        self.server.raw.append(body)
        for header, payload in envelope_items(body):
            if header["type"] == "event":
                self.server.events.append(json.loads(payload))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args) -> None:
        pass


@pytest.fixture
def sentry() -> Iterator[SentryStandIn]:
    stand_in = SentryStandIn()
    thread = threading.Thread(target=stand_in.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        stand_in.shutdown()
        stand_in.server_close()


@pytest.fixture
def reporting_server(sentry, django_db_blocker) -> Iterator[LiveServer]:
    with django_db_blocker.unblock():
        env = server_env(SENTRY_DSN=sentry.dsn)
    live = LiveServer(env, BASE_DIR / "test-artifacts" / "error-reports-daphne.log")
    live.start()
    try:
        yield live
    finally:
        live.close()


def test_without_a_dsn_nothing_reports():
    assert not sentry_sdk.get_client().is_active()
    assert not type(asgi.application.application_mapping["websocket"]).__module__.startswith(
        "sentry_sdk"
    )


def test_an_error_reaches_sentry_with_its_table_and_game_and_nothing_personal(
    sentry, reporting_server
):
    loop = asyncio.new_event_loop()
    run = loop.run_until_complete
    try:
        users = run(players(2))
        table = run(open_table(users))
        game = Game.objects.get(table=table)
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        mover = Seat.objects.get(table=table, position=seat, left_at__isnull=True).user
        socket = run(open_socket(reporting_server, mover, f"/ws/table/{table.pk}/"))
        run(receive(socket, "state"))
        # The game's stored state breaks under the socket: its next move fails on the server.
        Game.objects.filter(pk=game.pk).update(state={"broken": True})
        action = choose_action(engine, seat)
        run(socket.send(json.dumps({"type": "act", "action": action, "version": game.version})))
        assert run(receive(socket, "error"))["code"] == "server_error"
        run(socket.close())
    finally:
        loop.close()

    # A request that fails with the player's e-mail and password in its form and his session
    # cookie: none of it may be sent.
    browser = Browser(reporting_server)
    browser.cookies["sessionid"] = "secret-session-key"
    browser.headers["Host"] = "attacker.example"
    status, _page, _headers = browser.request(
        "POST", "/accounts/login/", {"login": mover.email, "password": PASSWORD}
    )
    assert status == 400

    failed_move = sentry.wait_for(lambda event: event.get("logger") == "games.consumers")
    assert failed_move["tags"]["table"] == str(table.pk)
    assert failed_move["tags"]["game"] == str(game.pk)
    assert failed_move["user"] == {"id": str(mover.pk)}
    assert failed_move["exception"]["values"]  # with its traceback, without frame variables
    assert all(
        "vars" not in frame
        for value in failed_move["exception"]["values"]
        for frame in value["stacktrace"]["frames"]
    )
    sentry.wait_for(lambda event: "DisallowedHost" in json.dumps(event))

    sent = b"\n".join(sentry.raw).decode()
    for personal in (mover.email, PASSWORD, "secret-session-key", mover.username):
        assert personal not in sent, personal
    for event in sentry.events:  # nor any client's address
        assert "ip_address" not in event["user"]
        assert "REMOTE_ADDR" not in json.dumps(event)
