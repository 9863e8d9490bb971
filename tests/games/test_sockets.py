"""The lobby and table sockets over the real ASGI app, Redis channel layer and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import timedelta

import pytest
import redis
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError, connection, transaction
from django.utils import timezone

import durak_site.sockets.db_threads
from durak_site.asgi import application
from durak_site.sockets import outage_closes
from durak_site.web.client_source import user_agent_hash
from games import consumers, effects, presence, services
from games.engine import Game as EngineGame
from games.engine import split_bank
from games.engine.bots import choose_action
from games.models import BankDistribution, Game, GameEvent, Seat, Table
from tests.games.conftest import (
    OPENING_BALANCE,
    STAKE,
    SecretLeak,
    TableClient,
    create_player,
    metric_value,
)
from tests.players import session_cookie
from wallet.selectors import user_balance

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

db = database_sync_to_async
SAME_ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


@db
def players(count: int, **options) -> list:
    return [create_player(**options) for _ in range(count)]


@db
def open_table(users: list, seats: int, **options) -> Table:
    table = services.table_create(user=users[0], stake=STAKE, seats=seats, **options)
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    return table


@db
def current_game(table: Table) -> Game:
    return Game.objects.filter(table=table).order_by("-number").first()


@db
def count_events(game: Game) -> int:
    return GameEvent.objects.filter(game=game).count()


async def connect_all(users: list, table: Table, snapshots) -> list[TableClient]:
    clients = [TableClient(user, table.pk, snapshots) for user in users]
    for client in clients:
        await client.connect()
    return clients


async def play_through_sockets(table: Table, clients: list[TableClient], watchers=()) -> Game:
    """Each player's bot moves through his own socket until the game is over."""
    for _step in range(5000):
        game = await current_game(table)
        for client in [*clients, *watchers]:
            await client.state_at_least(game.version)
        if game.status != Game.Status.PLAYING:
            return game
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        action = choose_action(engine, seat)
        await clients[seat].send({"type": "act", "action": action, "version": game.version})
        await clients[seat].state_at_least(game.version + 1)
    raise AssertionError("the game did not end")


def live_sockets(user) -> int:
    """The user's sockets counted towards his cap: claimed and seen within the last minute."""
    client = presence.redis_client()
    return client.zcount(presence.user_key(user.pk), time.time() - presence.STALE_SECONDS, "+inf")


# --- whole games ---------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 4])
async def test_complete_games_over_sockets_pay_by_places_and_never_leak_cards(
    seats, snapshots, fast_clients
):
    users = await players(seats)
    spectator = (await players(1))[0]
    table = await open_table(users, seats)
    clients = await connect_all(users, table, snapshots)
    watcher = TableClient(spectator, table.pk, snapshots)
    await watcher.connect()
    assert watcher.state["you"] is None and watcher.state["view"]["hand"] == []
    for seat, client in enumerate(clients):
        assert client.state["you"] == seat
        assert len(client.state["view"]["hand"]) == 6
        assert client.state["game"]["seed"] is None
        assert len(client.state["game"]["seed_hash"]) == 64
        assert client.state["deadline"] is not None

    game = await play_through_sockets(table, clients, [watcher])

    engine = EngineGame.from_dict(game.state)
    rows = {2: [100, 0], 4: [60, 30, 10, 0]}[seats]
    expected = split_bank(seats * STAKE, engine.places, rows)
    for seat, user in enumerate(users):
        assert await db(user_balance)(user=user) == OPENING_BALANCE - STAKE + expected[seat]
    final = clients[0].state
    assert final["game"]["status"] == "finished"
    assert final["game"]["seed"] == game.seed
    assert {row["seat"]: row["amount"] for row in final["result"]["payouts"]} == expected
    assert final["result"]["places"] == engine.places
    assert watcher.state["result"] == final["result"]
    shares = await db(
        lambda: dict(BankDistribution.objects.filter(game=game).values_list("seat", "amount"))
    )()
    assert shares == expected
    assert all(client.errors == [] for client in [*clients, watcher])
    assert sum(client.frames for client in clients) > game.version
    await db(call_command)("ledger_check")
    await db(call_command)("verify_game", game.pk)
    for client in [*clients, watcher]:
        await client.close()


# --- refused messages ----------------------------------------------------------------------


BAD_FRAMES = [
    ("{not json", "invalid_json"),
    ("[1, 2]", "not_an_object"),
    ('"act"', "not_an_object"),
    ("{}", "unknown_type"),
    ('{"type": "move"}', "unknown_type"),
    ('{"type": 7}', "unknown_type"),
    ('{"type": "act", "version": 0}', "bad_message"),
    ('{"type": "act", "action": {"type": "take"}}', "bad_message"),
    ('{"type": "act", "action": "take", "version": 0}', "bad_message"),
    ('{"type": "act", "action": {"type": "take"}, "version": "0"}', "bad_message"),
    ('{"type": "act", "action": {"type": "take"}, "version": true}', "bad_message"),
    ('{"type": "act", "action": {"type": "take"}, "version": -1}', "bad_message"),
    ('{"type": "act", "action": {"type": "take"}, "version": 0, "seat": 1}', "bad_message"),
    ('{"type": "sync"}', "bad_message"),
    ('{"type": "ping", "extra": 1}', "bad_message"),
    (
        '{"type": "act", "action": {"type": "pass"}, "version": 0, "pad": "' + "x" * 5000 + '"}',
        "frame_too_large",
    ),
]


async def test_malformed_frames_are_answered_with_errors_and_change_nothing(snapshots):
    users = await players(2)
    table = await open_table(users, 2)
    game = await current_game(table)
    client = (await connect_all(users[:1], table, snapshots))[0]
    for frame, code in BAD_FRAMES:
        await client.send(frame)
        error = await client.receive("error")
        assert error["code"] == code, frame
        assert error["message"]
    await client.communicator.send_to(bytes_data=b"\xff\xfe")
    assert (await client.receive("error"))["code"] == "invalid_json"
    await client.send({"type": "ping"})
    assert (await client.receive())["type"] == "pong"
    await client.nothing_more()
    assert (await current_game(table)).version == game.version
    assert await count_events(game) == 0
    await client.close()


async def test_a_message_whose_handling_fails_is_answered_and_the_socket_lives_on(
    snapshots, monkeypatch
):
    users = await players(2)
    table = await open_table(users, 2)
    client = (await connect_all(users[:1], table, snapshots))[0]
    await client.drain()

    async def broken(self, message):
        raise RuntimeError("a bug")

    monkeypatch.setattr(consumers.TableConsumer, "on_sync", broken)
    await client.send({"type": "sync", "version": 0})
    assert (await client.receive("error"))["code"] == "server_error"
    await client.send({"type": "ping"})
    assert (await client.receive())["type"] == "pong"
    await client.close()


async def test_a_database_or_redis_outage_closes_sockets_with_the_retryable_4503(
    snapshots, monkeypatch
):
    user, other = await players(2)
    table = await open_table([user, other], 2)
    cookie = (await db(session_cookie)(user)).encode()

    async def close_code_on_opening() -> int | None:
        communicator = WebsocketCommunicator(
            application, f"/ws/table/{table.pk}/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
        )
        connected, _ = await communicator.connect()
        assert connected  # accepted, then closed: not a failed handshake (HTTP 500)
        output = await communicator.receive_output(timeout=2)
        await communicator.disconnect()
        return output.get("code") if output["type"] == "websocket.close" else None

    async def database_down(self, scope):
        raise OperationalError("the database is restarting")

    def redis_down(*args):
        raise redis.ConnectionError("Redis is restarting")

    with monkeypatch.context() as patched:
        patched.setattr(
            durak_site.sockets.db_threads.AuthMiddleware, "resolve_scope", database_down
        )
        assert await close_code_on_opening() == outage_closes.CLOSE_UNAVAILABLE
    with monkeypatch.context() as patched:
        patched.setattr(presence, "claim", redis_down)
        assert await close_code_on_opening() == outage_closes.CLOSE_UNAVAILABLE
    assert await close_code_on_opening() is None  # back to normal

    client = (await connect_all([user], table, snapshots))[0]
    await client.drain()

    async def sync_meets_outage(self, message):
        raise OperationalError("the database is restarting")

    monkeypatch.setattr(consumers.TableConsumer, "on_sync", sync_meets_outage)
    await client.send({"type": "sync", "version": 0})
    output = await client.communicator.receive_output(timeout=2)
    assert output == {"type": "websocket.close", "code": outage_closes.CLOSE_UNAVAILABLE}


async def test_the_heartbeat_goes_on_after_a_redis_error(snapshots, monkeypatch):
    users = await players(2)
    table = await open_table(users, 2)
    beats = []
    refresh = presence.refresh

    def refresh_after_one_failure(user_id: int, connection: str) -> None:
        beats.append(connection)
        if len(beats) == 1:
            raise redis.ConnectionError("Redis is restarting")
        refresh(user_id, connection)

    monkeypatch.setattr(presence, "HEARTBEAT_SECONDS", 0.01)
    monkeypatch.setattr(presence, "refresh", refresh_after_one_failure)
    client = (await connect_all(users[:1], table, snapshots))[0]
    async with asyncio.timeout(10):
        while len(beats) < 3:
            await asyncio.sleep(0.01)
    await client.send({"type": "ping"})
    assert (await client.receive())["type"] == "pong"
    await client.close()


async def test_illegal_acts_are_refused_with_the_engine_or_service_code(snapshots):
    users = await players(2)
    spectator = (await players(1))[0]
    table = await open_table(users, 2)
    game = await current_game(table)
    engine = EngineGame.from_dict(game.state)
    leader = engine.waiting_for[0]
    other = 1 - leader
    clients = await connect_all(users, table, snapshots)
    watcher = TableClient(spectator, table.pk, snapshots)
    await watcher.connect()
    lead = engine.timeout_action(leader)
    foreign_card = engine.hand(other)[0]
    for client in [*clients, watcher]:
        await client.drain()
    refused = {
        code: metric_value("durak_refusals_total", code=code)
        for code in ("stale_version", "not_your_turn", "malformed")
    }
    # A stale client gets the error and then the current state.
    await clients[leader].send({"type": "act", "action": lead, "version": game.version + 3})
    assert (await clients[leader].receive())["code"] == "stale_version"
    assert (await clients[leader].receive())["version"] == game.version
    cases = [
        (clients[other], lead, game.version, "not_your_turn"),
        (clients[other], {"type": "take"}, game.version, "not_your_turn"),
        (watcher, lead, game.version, "not_a_player"),
        (clients[leader], {"type": "attack", "cards": [foreign_card]}, 0, "card_not_in_hand"),
        (clients[leader], {**lead, "seat": other}, game.version, "malformed"),
        (clients[leader], {"type": "attack", "cards": "6S"}, game.version, "malformed"),
    ]
    for client, action, version, code in cases:
        await client.send({"type": "act", "action": action, "version": version})
        error = await client.receive()
        assert (error["type"], error["code"]) == ("error", code), action
    assert (await current_game(table)).version == game.version
    assert await count_events(game) == 0
    for client in clients:
        await client.nothing_more()
    counted = {
        code: metric_value("durak_refusals_total", code=code) - was for code, was in refused.items()
    }
    assert counted == {"stale_version": 1, "not_your_turn": 2, "malformed": 2}

    await clients[leader].send({"type": "act", "action": lead, "version": game.version})
    state = await clients[leader].state_at_least(game.version + 1)
    assert state["events"][-1] == {
        "version": 1,
        "bout": 0,
        "seat": leader,
        "action": lead,
        "automatic": False,
        "lead": True,
    }
    for client in [*clients, watcher]:
        await client.close()


async def _replies_until_quiet(client: TableClient) -> tuple[list[str], int | None]:
    """The types of everything the socket is sent until it goes quiet, and its close code."""
    kinds: list[str] = []
    # Generous: on a busy machine an answer may wait for a session check in the database.
    while not await client.communicator.receive_nothing(timeout=1.5):
        output = await client.communicator.receive_output()
        if output["type"] == "websocket.close":
            return kinds, output.get("code")
        message = json.loads(output["text"])
        if message["type"] == "error":
            client.errors.append(message)
        kinds.append(message["type"])
    return kinds, None


async def test_a_flood_is_warned_once_and_then_closed(snapshots):
    users = await players(2)
    table = await open_table(users, 2)
    client = (await connect_all(users[:1], table, snapshots))[0]
    await client.drain()
    refused, closed = (
        metric_value("durak_refusals_total", code=code) for code in ("rate_limited", "4408")
    )
    sent = int(consumers.RATE_BURST) + consumers.FLOOD_STRIKES + 10
    started = time.monotonic()
    for _ in range(sent):
        await client.send({"type": "ping"})
    replies, code = await _replies_until_quiet(client)
    refilled = (time.monotonic() - started) * consumers.RATE_PER_SECOND
    assert consumers.RATE_BURST <= replies.count("pong") <= consumers.RATE_BURST + refilled + 1
    # Not an answer per refused message: one warning, then the documented close.
    assert [error["code"] for error in client.errors] == ["rate_limited"]
    assert code == consumers.CLOSE_FLOODING
    # Each message refused counts (those already read when the socket closed too), the close once.
    assert metric_value(
        "durak_refusals_total", code="rate_limited"
    ) - refused == sent - replies.count("pong")
    assert metric_value("durak_refusals_total", code="4408") - closed == 1


@pytest.mark.slow
async def test_the_rate_limit_is_shared_by_all_sockets_of_a_user(snapshots):
    users = await players(2)
    table = await open_table(users, 2)
    # Each socket stays within its own burst: only the user's shared bucket can refuse.
    # Six sockets send far more than the user's burst, so a slow machine's refill cannot hide it.
    per_socket = int(consumers.RATE_BURST) - 2
    sockets = [TableClient(users[0], table.pk, snapshots) for _ in range(6)]
    for client in sockets:
        await client.connect()
    other = TableClient(users[1], table.pk, snapshots)
    await other.connect()
    for client in [*sockets, other]:
        await client.drain()
    started = time.monotonic()
    for _ in range(per_socket):
        for client in sockets:
            await client.send({"type": "ping"})
    replies = [kind for client in sockets for kind in (await _replies_until_quiet(client))[0]]
    elapsed = time.monotonic() - started
    refilled = elapsed * consumers.USER_RATE_PER_SECOND
    assert replies.count("pong") >= consumers.USER_RATE_BURST
    assert replies.count("pong") <= consumers.USER_RATE_BURST + refilled + 1
    assert replies.count("pong") < per_socket * len(sockets)
    assert {error["code"] for client in sockets for error in client.errors} == {"rate_limited"}
    # Another user's bucket is his own.
    for _ in range(per_socket):
        await other.send({"type": "ping"})
    assert [(await other.receive())["type"] for _ in range(per_socket)] == ["pong"] * per_socket
    for client in [*sockets, other]:
        await client.close()


@pytest.mark.slow
async def test_the_budget_is_shared_by_all_sockets_of_an_address(snapshots):
    users = await players(10)
    table = await open_table(users[:2], 2)
    # Users behind one address, each socket within its own burst and each user within his:
    # only the address's shared bucket can refuse. Together they send far more than its burst.
    per_socket = int(consumers.RATE_BURST) - 2
    crowd = [TableClient(user, table.pk, snapshots, address="192.0.2.7") for user in users[:9]]
    elsewhere = TableClient(users[9], table.pk, snapshots, address="192.0.2.8")
    for client in [*crowd, elsewhere]:
        await client.connect()
        await client.drain()
    started = time.monotonic()
    for _ in range(per_socket):
        for client in crowd:
            await client.send({"type": "ping"})
    answers = [await _replies_until_quiet(client) for client in crowd]
    replies = [kind for kinds, _code in answers for kind in kinds]
    refilled = (time.monotonic() - started) * consumers.ADDRESS_RATE_PER_SECOND
    assert replies.count("pong") >= consumers.ADDRESS_RATE_BURST
    assert replies.count("pong") <= consumers.ADDRESS_RATE_BURST + refilled + 1
    assert replies.count("pong") < per_socket * len(crowd)
    assert {error["code"] for client in crowd for error in client.errors} == {"rate_limited"}
    # Each socket kept to its own limit: refused, not closed.
    assert [code for _kinds, code in answers] == [None] * len(crowd)
    # Another address's bucket is its own.
    for _ in range(per_socket):
        await elsewhere.send({"type": "ping"})
    replies = [(await elsewhere.receive())["type"] for _ in range(per_socket)]
    assert replies == ["pong"] * per_socket
    for client in [*crowd, elsewhere]:
        await client.close()


async def test_what_the_state_held_answers_costs_no_database_work(snapshots, monkeypatch):
    users = await players(4)
    table = await open_table(users[:2], 2)
    waiting_table = await open_table(users[3:], 2)  # one player of two: no game yet
    game = await current_game(table)
    engine = EngineGame.from_dict(game.state)
    leader = engine.waiting_for[0]
    other = 1 - leader
    lead = engine.timeout_action(leader)
    clients = await connect_all(users[:2], table, snapshots)
    watcher = TableClient(users[2], table.pk, snapshots)
    alone = TableClient(users[3], waiting_table.pk, snapshots)
    await watcher.connect()
    await alone.connect()
    for client in [*clients, watcher, alone]:
        await client.drain()
    work: list[str] = []
    counted = consumers.database_sync_to_async

    def counting(function):
        work.append(function.__name__)
        return counted(function)

    monkeypatch.setattr(consumers, "database_sync_to_async", counting)
    version = game.version
    syncs = [
        ({"version": version, "game": game.pk}, "unchanged"),
        ({"version": version}, "unchanged"),
        ({"version": version, "game": game.pk + 1}, "state"),  # the client shows another game
        ({"version": version + 1}, "state"),
    ]
    for fields, answer in syncs:
        await clients[leader].send({"type": "sync", **fields})
        reply = await clients[leader].receive()
        assert reply["type"] == answer, fields
        assert reply["version"] == version
    refused = [
        (clients[leader], lead, version + 1, "stale_version"),
        (clients[other], lead, version, "not_your_turn"),
        (clients[other], {"type": "take"}, version, "not_your_turn"),
        (watcher, lead, version, "not_a_player"),
        (alone, lead, 0, "no_game"),
    ]
    for client, action, at, code in refused:
        await client.send({"type": "act", "action": action, "version": at})
        error = await client.receive()
        assert (error["type"], error["code"]) == ("error", code), action
        if code == "stale_version":  # the state shown follows, as after any stale move
            assert (await client.receive("state"))["version"] == version
    # Nothing but a session check that came due: no state read, no move tried.
    assert set(work) <= {"session_is_valid"}, work
    assert (await current_game(table)).version == version
    await clients[leader].send({"type": "act", "action": lead, "version": version})
    await clients[leader].state_at_least(version + 1)
    assert "_session_checked" in work  # a move the state allows goes to the game
    for client in [*clients, watcher, alone]:
        await client.close()


# --- connections ---------------------------------------------------------------------------


async def test_a_reconnect_returns_the_same_view_and_presence_is_shown(snapshots):
    users = await players(2)
    table = await open_table(users, 2)
    first, second = await connect_all(users, table, snapshots)
    state = await first.receive("state")  # the second player's arrival
    assert [player["connected"] for player in state["players"]] == [True, True]
    view = first.state["view"]
    # A client showing no game yet at version 0 is sent the whole state of the game at 0.
    await first.send({"type": "sync", "version": 0, "game": 0})
    assert (await first.receive("state"))["view"] == view

    await second.close()
    state = await first.receive("state")
    assert [player["connected"] for player in state["players"]] == [True, False]
    again = TableClient(users[1], table.pk, snapshots)
    state = await again.connect()
    assert state["view"] == second.state["view"]
    assert state["version"] == second.state["version"]
    assert state["players"][1]["connected"]
    await first.close()
    await again.close()


async def test_an_open_socket_keeps_its_presence_fresh_with_heartbeats(snapshots, monkeypatch):
    monkeypatch.setattr(presence, "HEARTBEAT_SECONDS", 0.05)
    users = await players(2)
    table = await open_table(users, 2)
    client = TableClient(users[0], table.pk, snapshots)
    await client.connect()
    redis_client = redis.Redis.from_url(settings.REDIS_URL)
    name = presence.key(table.pk, users[0].pk)
    # Age the socket's last sighting as if no heartbeat had come for a minute.
    for member in redis_client.zrange(name, 0, -1):
        redis_client.zadd(name, {member: time.time() - presence.STALE_SECONDS - 1})
    assert await db(presence.count)(table.pk, users[0].pk) == 0
    async with asyncio.timeout(5):  # the next heartbeats count it again
        while await db(presence.count)(table.pk, users[0].pk) != 1:
            await asyncio.sleep(0.05)
    await client.close()
    assert await db(presence.count)(table.pk, users[0].pk) == 0
    redis_client.close()


async def test_a_user_has_at_most_eight_sockets_and_the_next_is_closed_with_4429(snapshots):
    user, other = await players(2)
    table = await open_table([user], 2)
    cookie = (await db(session_cookie)(user)).encode()

    async def lobby_socket(cookie: bytes = cookie) -> tuple[WebsocketCommunicator, dict]:
        communicator = WebsocketCommunicator(
            application, "/ws/lobby/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
        )
        assert (await communicator.connect())[0]
        return communicator, await communicator.receive_output(timeout=2)

    half = consumers.SOCKETS_PER_USER // 2
    tables = [TableClient(user, table.pk, snapshots) for _ in range(half)]
    for client in tables:
        await client.connect()
    lobbies = [await lobby_socket() for _ in range(consumers.SOCKETS_PER_USER - half)]
    assert all(json.loads(first["text"])["type"] == "tables" for _lobby, first in lobbies)
    assert live_sockets(user) == consumers.SOCKETS_PER_USER

    refused, output = await lobby_socket()
    assert output == {"type": "websocket.close", "code": consumers.CLOSE_TOO_MANY_SOCKETS}
    await refused.disconnect()
    extra = WebsocketCommunicator(
        application, f"/ws/table/{table.pk}/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
    )
    assert (await extra.connect())[0]
    assert (await extra.receive_output(timeout=2))["code"] == consumers.CLOSE_TOO_MANY_SOCKETS
    await extra.disconnect()
    # A refused socket never counted at the table, and the cap is per user.
    assert await db(presence.count)(table.pk, user.pk) == half
    assert live_sockets(user) == consumers.SOCKETS_PER_USER
    other_cookie = (await db(session_cookie)(other)).encode()
    other_lobby, first = await lobby_socket(other_cookie)
    assert json.loads(first["text"])["type"] == "tables"

    # Closing one socket frees its place.
    await tables.pop().close()
    again = TableClient(user, table.pk, snapshots)
    await again.connect()
    assert live_sockets(user) == consumers.SOCKETS_PER_USER

    # The sockets of a process that died stop counting once their heartbeats are stale.
    redis_client = redis.Redis.from_url(settings.REDIS_URL)
    name = presence.user_key(user.pk)
    for member in redis_client.zrange(name, 0, -1):
        redis_client.zadd(name, {member: time.time() - presence.STALE_SECONDS - 1})
    redis_client.close()
    assert live_sockets(user) == 0
    revived = [await lobby_socket() for _ in range(consumers.SOCKETS_PER_USER)]
    assert all(json.loads(first["text"])["type"] == "tables" for _lobby, first in revived)
    over, output = await lobby_socket()
    assert output["code"] == consumers.CLOSE_TOO_MANY_SOCKETS
    await over.disconnect()

    for client in [*tables, again]:
        await client.close()
    for communicator, _first in [*lobbies, *revived, (other_lobby, None)]:
        await communicator.disconnect()
    assert live_sockets(user) == 0


async def test_unknown_tables_close_with_4404_and_anonymous_sockets_with_4401():
    user = (await players(1))[0]
    cookie = (await db(session_cookie)(user)).encode()
    communicator = WebsocketCommunicator(
        application, "/ws/table/999999999/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
    )
    connected, _ = await communicator.connect()
    assert connected
    assert (await communicator.receive_output(timeout=2))["code"] == 4404
    table = await open_table([user], 3)
    anonymous = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=SAME_ORIGIN)
    connected, _ = await anonymous.connect()
    assert (await anonymous.receive_output(timeout=2))["code"] == 4401


async def test_a_private_table_is_watched_only_by_its_players_and_invitees(snapshots):
    host, stranger, invitee = await players(3)
    table = await open_table([host], 2, private=True)

    async def close_code(user, query: str = "") -> int | None:
        cookie = (await db(session_cookie)(user)).encode()
        communicator = WebsocketCommunicator(
            application,
            f"/ws/table/{table.pk}/{query}",
            headers=[*SAME_ORIGIN, (b"cookie", cookie)],
        )
        connected, _ = await communicator.connect()
        assert connected
        output = await communicator.receive_output(timeout=2)
        await communicator.disconnect()
        return output.get("code") if output["type"] == "websocket.close" else None

    assert await close_code(stranger) == 4404
    assert await close_code(stranger, "?invite=wrong") == 4404
    assert await close_code(invitee, f"?invite={table.invite_code}") is None
    seated = TableClient(host, table.pk, snapshots)
    state = await seated.connect()
    assert (state["you"], state["table"]["invite_code"]) == (0, table.invite_code)
    await seated.close()


async def test_the_lobby_lists_open_public_tables_live():
    creator, guest, third = await players(3)
    hidden = await open_table([creator], 2, private=True)
    listed = await open_table([creator], 3)
    cookie = (await db(session_cookie)(guest)).encode()
    lobby = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
    )
    assert (await lobby.connect())[0]
    tables = (await lobby.receive_json_from())["tables"]
    ids = [entry["id"] for entry in tables]
    assert listed.pk in ids and hidden.pk not in ids
    entry = next(entry for entry in tables if entry["id"] == listed.pk)
    assert (entry["stake"], entry["seats"], entry["taken"]) == (STAKE, 3, 1)
    assert entry["players"] == [creator.username]

    await open_table([third], 2, private=True)  # never announced
    await db(services.table_join)(table_id=listed.pk, user=guest)
    message = await lobby.receive_json_from()
    assert message["type"] == "table" and message["table"]["taken"] == 2
    await db(services.table_leave)(table_id=listed.pk, user=guest)
    assert (await lobby.receive_json_from())["table"]["taken"] == 1
    new = await open_table([third], 2)
    message = await lobby.receive_json_from()
    assert message["type"] == "table" and message["table"]["id"] == new.pk
    await db(services.table_join)(table_id=new.pk, user=guest)  # full: the game starts
    assert await lobby.receive_json_from() == {"type": "table_removed", "id": new.pk}
    await lobby.send_json_to({"type": "ping"})
    assert await lobby.receive_json_from() == {"type": "pong"}
    await lobby.send_to(text_data=json.dumps({"type": "act"}))
    assert (await lobby.receive_json_from())["code"] == "unknown_type"
    await lobby.disconnect()


async def test_the_lobby_is_told_when_an_abandoned_open_table_is_closed():
    creator, watcher = await players(2)
    table = await open_table([creator], 3)
    cookie = (await db(session_cookie)(watcher)).encode()
    lobby = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
    )
    assert (await lobby.connect())[0]
    listed = (await lobby.receive_json_from())["tables"]
    assert table.pk in [entry["id"] for entry in listed]
    ttl = timedelta(seconds=settings.TABLE_OPEN_TTL + 1)
    await db(Seat.objects.filter(table=table).update)(joined_at=timezone.now() - ttl)

    await db(services.games_sweep)()

    assert await lobby.receive_json_from() == {"type": "table_removed", "id": table.pk}
    assert await db(user_balance)(user=creator) == OPENING_BALANCE
    assert await lobby.receive_nothing(timeout=0.3)
    await lobby.disconnect()


async def test_the_leak_check_flags_a_card_of_another_hand_and_unvetted_event_fields(snapshots):
    users = await players(2)
    table = await open_table(users, 2)
    client = TableClient(users[0], table.pk, snapshots)
    state = await client.connect()
    game = await current_game(table)
    foreign = EngineGame.from_dict(game.state).hand(1)[0]
    state["players"][0]["nickname"] = foreign
    with pytest.raises(SecretLeak):
        await client.check_secrets(state)
    # An event field nobody vetted is flagged too, whatever it holds.
    state["players"][0]["nickname"] = users[0].username
    await client.check_secrets(state)
    state["events"] = [
        {
            "version": 1,
            "bout": 0,
            "seat": 0,
            "action": {"type": "take"},
            "automatic": False,
            "lead": False,
            "drawn": 2,
        }
    ]
    with pytest.raises(SecretLeak, match="drawn"):
        await client.check_secrets(state)
    await client.close()


async def test_errors_speak_the_users_language(snapshots):
    users = await players(1)
    table = await open_table(users, 2)
    russian = TableClient(users[0], table.pk, snapshots)
    await russian.connect()
    await russian.send("{")
    assert (await russian.receive("error"))["message"] == "Сообщение — не корректный JSON."
    cookie = (await db(session_cookie)(users[0])).encode()
    english = WebsocketCommunicator(
        application,
        f"/ws/table/{table.pk}/",
        headers=[*SAME_ORIGIN, (b"cookie", cookie + b"; django_language=en")],
    )
    assert (await english.connect())[0]
    assert (await english.receive_json_from())["type"] == "chat_history"
    assert (await english.receive_json_from())["type"] == "state"
    await english.send_to(text_data="{")
    assert (await english.receive_json_from())["message"] == "The message is not valid JSON."
    await english.disconnect()
    await russian.close()


@db
def mark_away(table: Table, user) -> None:
    # As the server marks a player away: the table hears of it.
    with transaction.atomic():
        Seat.objects.filter(table=table, user=user).update(
            away=True, server_moves={"take": 1, "lead": 1}
        )
        effects.announce(table=table, lobby=False)


@db
def seat_of(table: Table, user) -> Seat:
    return Seat.objects.get(table=table, user=user, left_at__isnull=True)


async def test_a_player_marked_away_says_he_is_back_and_the_mark_clears(snapshots):
    users = await players(3)
    table = await open_table(users[:2], 2)
    first, second = await connect_all(users[:2], table, snapshots)
    await first.receive("state")  # the second player's arrival
    await mark_away(table, users[0])
    marked = await first.receive("state")
    assert marked["players"][0]["away"] is True
    assert marked["server_moves"] == {"take": 1, "pass": 0, "lead": 1}

    await first.send({"type": "back"})
    state = await first.receive("state")
    assert state["players"][0]["away"] is False
    assert state["server_moves"] == {"take": 0, "pass": 0, "lead": 0}
    assert (await second.receive("state"))["players"][0]["away"] is True  # the mark
    assert (await second.receive("state"))["players"][0]["away"] is False
    seat = await seat_of(table, users[0])
    assert not seat.away and seat.server_moves == {}

    # Saying it again changes nothing; a spectator may not say it at all.
    await first.send({"type": "back"})
    await first.send({"type": "sync", "version": 0})
    assert await first.receive() == {"type": "unchanged", "version": 0}
    assert first.state["players"][0]["away"] is False
    watcher = TableClient(users[2], table.pk, snapshots)
    await watcher.connect()
    await watcher.send({"type": "back"})
    assert (await watcher.receive("error"))["code"] == "not_seated"
    for client in (first, second, watcher):
        await client.close()


# --- rematch -------------------------------------------------------------------------------


async def test_a_rematch_is_confirmed_over_the_socket_and_starts_once_all_have(
    snapshots, fast_clients
):
    users = await players(3)
    table = await open_table(users[:2], 2)
    browser = "b" * 22
    headers = [(b"user-agent", b"Bench/1.0"), (b"cookie", f"browser={browser}".encode())]
    clients = [
        TableClient(user, table.pk, snapshots, headers, address=f"192.0.2.{number}")
        for number, user in enumerate(users[:2], start=10)
    ]
    for client in clients:
        await client.connect()
    first, second = clients
    game = await play_through_sockets(table, clients)
    balance = await db(user_balance)(user=users[0])

    # Refused, changing nothing: a game this socket does not show, a spectator, a bad message.
    await first.send({"type": "rematch", "game": game.pk + 1})
    assert (await first.receive("error"))["code"] == "rematch_closed"
    watcher = TableClient(users[2], table.pk, snapshots)
    await watcher.connect()
    await watcher.send({"type": "rematch", "game": game.pk})
    assert (await watcher.receive("error"))["code"] == "not_a_player"
    await first.send({"type": "rematch", "game": str(game.pk)})
    assert (await first.receive("error"))["code"] == "bad_message"
    assert await db(user_balance)(user=users[0]) == balance

    await first.send({"type": "rematch", "game": game.pk})
    mine = await first.receive("state")  # the confirming player is served first
    assert mine["rematch"]["confirmed"] == [0]
    assert (await second.receive("state"))["rematch"]["confirmed"] == [0]
    assert await db(user_balance)(user=users[0]) == balance - STAKE
    seat = await db(Seat.objects.get)(table=table, user=users[0], left_at__isnull=True)
    # Where the confirmation came from, for the fair-play checks, as a form post records it.
    assert (seat.client_address, seat.browser_id, seat.user_agent_hash) == (
        "192.0.2.10",
        browser,
        user_agent_hash("Bench/1.0"),
    )

    # A double click is refused and holds nothing more.
    await first.send({"type": "rematch", "game": game.pk})
    assert (await first.receive("error"))["code"] == "rematch_already_confirmed"
    assert await db(user_balance)(user=users[0]) == balance - STAKE

    await second.send({"type": "rematch", "game": game.pk})
    for client in (first, second, watcher):
        state = await client.receive("state")
        while state["game"]["id"] == game.pk:
            state = await client.receive("state")
        assert state["game"]["status"] == "playing" and state["version"] == 0
    # The old game is no longer the one shown: confirming it again is refused.
    await first.send({"type": "rematch", "game": game.pk})
    assert (await first.receive("error"))["code"] == "rematch_closed"
    assert first.errors[-1]["message"]  # in words, not only a code
    await db(call_command)("ledger_check")
    for client in (first, second, watcher):
        await client.close()


async def test_commands_waiting_for_one_table_leave_the_database_threads_to_the_others(
    snapshots, fast_clients
):
    # As many sockets at the locked table as the process has database threads, each sending a
    # command that waits for the table's row: without a turn per table they would take them all.
    crowd = await players(4)
    locked_table = await open_table(crowd, 4)
    crowd_clients = [
        TableClient(crowd[number % 4], locked_table.pk, snapshots)
        for number in range(settings.DB_THREADS)
    ]
    for client in crowd_clients:
        await client.connect()
    pair = await players(2)
    other_table = await open_table(pair, 2)
    pair_clients = await connect_all(pair, other_table, snapshots)

    held, release = threading.Event(), threading.Event()

    def hold_the_row() -> None:
        try:
            with transaction.atomic():
                Table.objects.select_for_update().get(pk=locked_table.pk)
                held.set()
                release.wait(30)
        finally:
            connection.close()

    holder = asyncio.get_running_loop().run_in_executor(None, hold_the_row)
    try:
        assert await asyncio.to_thread(held.wait, 10)
        for client in crowd_clients:
            await client.send({"type": "act", "action": {"type": "take"}, "version": 0})
        await asyncio.sleep(0.3)  # they reach the row lock, or their turn, and wait there

        game = await current_game(other_table)
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        action = choose_action(engine, seat)
        await pair_clients[seat].send({"type": "act", "action": action, "version": game.version})
        # The other table's move is made while the first table's row stays locked.
        await pair_clients[seat].state_at_least(game.version + 1, timeout=5)
        assert not release.is_set()
    finally:
        release.set()
        await holder
    for client in crowd_clients:  # each answered once the row was free
        assert (await client.receive("error"))["code"] in {"not_your_turn", "take_not_allowed"}
    for client in [*crowd_clients, *pair_clients]:
        await client.close()
