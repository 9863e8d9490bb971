"""Error reports: with SENTRY_DSN set, a web process sends its errors to Sentry tagged with the
table and game, and nothing personal goes with them. A small local server stands in for
Sentry's ingest endpoint and reads its envelopes (tests/sentry.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
import sentry_sdk

from durak_site import asgi
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, Seat
from tests.players import PASSWORD
from tests.security.conftest import Browser, open_socket, open_table, players, receive
from tests.sentry import SentryStandIn, sentry_stand_in
from tests.servers import BASE_DIR, LiveServer, server_env

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def sentry() -> Iterator[SentryStandIn]:
    with sentry_stand_in() as stand_in:
        yield stand_in


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
