"""The move path: three statements, states built once per change and forwarded."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import re
import time
from concurrent.futures import ThreadPoolExecutor

import channels.consumer
import pytest
import redis
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import broadcast, consumers, persistence, services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, GameEvent, Seat, Table
from games.services._locks import lock_game
from tests.games.conftest import TableClient
from tests.games.test_services import bot_move, seated_game
from tests.games.test_sockets import connect_all, current_game, open_table, players

pytestmark = pytest.mark.django_db(transaction=True)

# Lock the table and the game, read the seats, insert the events and update the game.
STATEMENTS_PER_MOVE = 3


def measured_move(game: Game, users: list) -> list[str]:
    """The statements one move runs, as written, checked to run in one transaction."""
    game.refresh_from_db()
    engine = EngineGame.from_dict(game.state)
    seat = engine.waiting_for[0]
    statements = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as queries, connection.execute_wrapper(record):
        services.game_apply_action(
            game_id=game.pk,
            user=users[seat],
            action=choose_action(engine, seat),
            expected_version=game.version,
        )
    logged = queries.captured_queries
    assert (logged[0]["sql"], logged[-1]["sql"]) == ("BEGIN", "COMMIT"), logged
    assert len(logged) == len(statements) + 2, logged
    return statements


def test_a_move_issues_the_same_few_statements_early_and_late_in_a_game():
    game, users = seated_game(4)
    first = measured_move(game, users)
    for _ in range(40):
        measured_move(game, users)
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING and game.version > 40
    late = measured_move(game, users)
    assert len(first) == len(late) == STATEMENTS_PER_MOVE, late
    # The log is only added to, never read back, and the states are built without a query.
    assert not any("games_gameevent" in sql and sql.startswith("SELECT") for sql in late)


def test_the_statements_of_a_move_are_prepared_once_per_connection():
    game, users = seated_game(4)
    moves = [
        measured_move(game, users)
        for _ in range(settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"] + 1)
    ]
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]
    # PostgreSQL holds the move's statements planned, and no longer plans them on each move.
    assert {server_placeholders(sql) for sql in moves[-1]} <= set(prepared), prepared


def server_placeholders(sql: str) -> str:
    """The statement as psycopg sends it with its parameters apart: $1, $2... for each %s."""
    numbers = itertools.count(1)
    return re.sub("%s", lambda _: f"${next(numbers)}", sql)


@pytest.fixture
def state_reads(monkeypatch):
    """How often a socket read a state from the database."""
    reads = []
    original = consumers._table_state

    def counted(*args):
        reads.append(args)
        return original(*args)

    monkeypatch.setattr(consumers, "_table_state", counted)
    return reads


async def play_moves(table, clients, count: int, watchers=()) -> Game:
    for _ in range(count):
        game = await current_game(table)
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        await clients[seat].send(
            {"type": "act", "action": choose_action(engine, seat), "version": game.version}
        )
        for client in [*clients, *watchers]:
            await client.state_at_least(game.version + 1)
    return await current_game(table)


@pytest.mark.asyncio
async def test_sockets_only_forward_the_states_they_are_sent(snapshots, state_reads, fast_clients):
    users = await players(3)
    table = await open_table(users, 3)
    clients = await connect_all(users, table, snapshots)
    watcher = TableClient((await players(1))[0], table.pk, snapshots)
    await watcher.connect()
    opened = len(state_reads)
    assert opened == 4

    game = await play_moves(table, clients, 12, [watcher])
    assert len(state_reads) == opened  # no socket read anything to receive a state
    for client in [*clients, watcher]:
        assert client.state["version"] == game.version
        # The log arrived move by move and adds up to the whole of it.
        assert [event["version"] for event in client.state["events"]] == list(
            range(1, game.version + 1)
        )
    assert watcher.state["you"] is None and watcher.state["view"]["hand"] == []

    # A sync at the current version is answered `unchanged`, one from an older version with the
    # whole state: the socket answers both from what it holds.
    await clients[0].send({"type": "sync", "version": game.version, "game": game.pk})
    assert await clients[0].receive() == {"type": "unchanged", "version": game.version}
    await clients[0].send({"type": "sync", "version": game.version - 1, "game": game.pk})
    full = await clients[0].receive("state")
    assert full["version"] == game.version and "events_from" not in full
    assert len(full["events"]) == game.version
    assert len(state_reads) == opened
    for client in [*clients, watcher]:
        await client.close()


@pytest.mark.asyncio
async def test_the_mover_is_served_before_anyone_else(snapshots, monkeypatch, fast_clients):
    users = await players(3)
    table = await open_table(users, 3)
    clients = await connect_all(users, table, snapshots)
    game = await current_game(table)
    engine = EngineGame.from_dict(game.state)
    mover = clients[engine.waiting_for[0]]
    queued_first = []
    send = broadcast.send

    async def watched_send(messages):
        # Nobody else has been sent anything yet: the mover's frame is already on its way.
        frames = [json.loads(item["text"]) for item in list(mover.communicator.output_queue._queue)]
        queued_first.append(any(frame.get("version") == game.version + 1 for frame in frames))
        await send(messages)

    monkeypatch.setattr(broadcast, "send", watched_send)
    seat = engine.waiting_for[0]
    await mover.send(
        {"type": "act", "action": choose_action(engine, seat), "version": game.version}
    )
    for client in clients:
        await client.state_at_least(game.version + 1)
    assert queued_first == [True]
    for client in clients:
        await client.close()


class OtherSocket:
    """A table socket of another web process: what its process hands it."""

    def __init__(self) -> None:
        self.posted: list[dict] = []

    def post(self, body: dict) -> None:
        self.posted.append(body)


async def socket_elsewhere(
    table: Table, user, elsewhere: broadcast.LocalSockets | None = None
) -> tuple[broadcast.LocalSockets, OtherSocket]:
    """A socket of `user` at the table on another web process (`elsewhere`, else a new one)."""
    if elsewhere is None:
        elsewhere = broadcast.LocalSockets(asyncio.get_running_loop())
        await elsewhere.joined.wait()
    socket = OtherSocket()
    connection = elsewhere.connection(f"specific.other!{len(elsewhere.groups)}")
    await sync_to_async(services.presence_connect)(
        table_id=table.pk, user=user, connection=connection
    )
    elsewhere.add(table.pk, user.pk, socket)
    return elsewhere, socket


async def posted_until(socket: OtherSocket, wanted, timeout: float = 5) -> None:
    """Wait until the socket has been handed a body that is `wanted`."""
    deadline = time.monotonic() + timeout
    while not any(wanted(body) for body in socket.posted):
        assert time.monotonic() < deadline, socket.posted
        await asyncio.sleep(0.01)


@pytest.mark.asyncio
async def test_a_move_reaches_every_socket_though_the_channel_layer_connection_broke(
    snapshots, fast_clients
):
    users = await players(2)
    table = await open_table(users, 2)
    clients = await connect_all(users, table, snapshots)
    watcher = TableClient((await players(1))[0], table.pk, snapshots)
    await watcher.connect()
    elsewhere, watching = await socket_elsewhere(table, (await players(1))[0])
    # Every connection the layer holds for sending dies now, as when Redis restarts or a
    # network link drops; the sockets' receiving connections are left alone.
    control = redis.Redis.from_url(settings.REDIS_URL)
    killed = 0
    for client in control.client_list():
        if client["cmd"] not in {"bzpopmin", "client|list", "client"}:
            killed += control.client_kill_filter(_id=client["id"])
    control.close()
    assert killed

    game = await play_moves(table, clients, 1, [watcher])
    assert game.version == 1
    for client in [*clients, watcher]:
        assert client.state["version"] == 1
        await client.close()
    await posted_until(watching, lambda body: body["key"][1] == 1)
    elsewhere.listener.cancel()


@pytest.fixture
def layer_sends(monkeypatch) -> list[tuple[str, dict]]:
    """Every (group or channel, message) sent through the channel layer, recorded on its way
    in (once, though one of the layer's sends calls another)."""
    layer = get_channel_layer()
    sent = []
    inside = contextvars.ContextVar("inside_a_layer_send", default=False)

    def recorded(method):
        async def record(*args):
            if not inside.get():
                sent.append(args)
            token = inside.set(True)
            try:
                await method(*args)
            finally:
                inside.reset(token)

        return record

    monkeypatch.setattr(layer, "group_send", recorded(layer.group_send))
    monkeypatch.setattr(layer, "send", recorded(layer.send))
    return sent


@pytest.mark.asyncio
async def test_the_sockets_of_a_table_on_one_process_get_its_moves_without_the_channel_layer(
    snapshots, fast_clients, layer_sends
):
    users = await players(3)
    table = await open_table(users, 3)
    clients = await connect_all(users, table, snapshots)
    watcher = TableClient((await players(1))[0], table.pk, snapshots)
    await watcher.connect()
    layer_sends.clear()

    game = await play_moves(table, clients, 6, [watcher])
    assert [group for group, _message in layer_sends] == []
    for client in [*clients, watcher]:
        assert client.state["version"] == game.version
        await client.close()


@pytest.mark.asyncio
async def test_sockets_on_another_process_get_their_own_states_through_the_channel_layer(
    snapshots, fast_clients, layer_sends
):
    users = await players(2)
    table = await open_table(users, 2)
    clients = await connect_all(users, table, snapshots)
    # Another web process, with a second tab of the first player and a spectator's socket.
    elsewhere, tab = await socket_elsewhere(table, users[0])
    _elsewhere, watching = await socket_elsewhere(table, (await players(1))[0], elsewhere)
    layer_sends.clear()

    game = await play_moves(table, clients, 3)
    seat = game.players.index(users[0].pk)

    def seen(socket: OtherSocket, kind: str) -> list[dict]:
        return [body for body in socket.posted if body["type"] == kind]

    latest = game.version
    await posted_until(tab, lambda body: body["type"] == "table.state" and body["key"][1] == latest)
    await posted_until(
        watching, lambda body: body["type"] == "table.watch" and body["key"][1] == latest
    )
    assert {body["seat"] for body in seen(tab, "table.state")} == {seat}
    assert seen(watching, "table.state") == []
    assert {body["seat"] for body in seen(watching, "table.watch")} == {None}
    # Only that process's sockets' states cross: the other player's never leaves this one.
    crossed = [message for group, message in layer_sends if group == elsewhere.name]
    assert len(crossed) == 3
    assert {group for message in crossed for group, _body in message["parts"]} == {
        broadcast.user_group(table.pk, users[0].pk),
        broadcast.watch_group(table.pk),
    }
    assert all(group == elsewhere.name for group, _message in layer_sends)
    elsewhere.listener.cancel()
    for client in clients:
        await client.close()


@pytest.mark.asyncio
async def test_a_spectator_coming_and_going_sends_the_players_nothing(snapshots):
    users = await players(2)
    table = await open_table(users, 2)
    clients = await connect_all(users, table, snapshots)
    for client in clients:  # each has heard of both players' arrival
        while not all(player["connected"] for player in client.state["players"]):
            await client.receive("state")
    watcher = TableClient((await players(1))[0], table.pk, snapshots)
    await watcher.connect()
    await watcher.close()
    for client in clients:
        await client.nothing_more()
    for client in clients:
        await client.close()


@pytest.mark.asyncio
async def test_the_spectators_state_is_built_and_sent_only_while_someone_watches(
    snapshots, monkeypatch, fast_clients
):
    users = await players(2)
    table = await open_table(users, 2)
    clients = await connect_all(users, table, snapshots)
    sent_groups = []
    send = broadcast.send

    async def recorded_send(messages):
        sent_groups.append({message.group for message in messages})
        await send(messages)

    monkeypatch.setattr(broadcast, "send", recorded_send)
    watch = broadcast.watch_group(table.pk)
    await play_moves(table, clients, 1)
    seats = {broadcast.user_group(table.pk, user.pk) for user in users}
    assert sent_groups and all(groups == seats for groups in sent_groups)

    watcher = TableClient((await players(1))[0], table.pk, snapshots)
    await watcher.connect()
    sent_groups.clear()
    game = await play_moves(table, clients, 1, [watcher])
    assert watch in sent_groups[-1]
    assert watcher.state["version"] == game.version and watcher.state["you"] is None

    await watcher.close()
    sent_groups.clear()
    game = await play_moves(table, clients, 1)
    assert sent_groups and all(watch not in groups for groups in sent_groups)
    for client in clients:
        assert client.state["version"] == game.version
        await client.close()


@pytest.mark.asyncio
async def test_a_socket_forwards_a_state_without_going_to_a_thread(snapshots, monkeypatch):
    users = await players(2)
    table = await open_table(users, 2)
    clients = await connect_all(users, table, snapshots)
    game = await current_game(table)
    # Channels' consumers hop to a thread to close stale database connections before each
    # message they handle.
    hops = []

    async def counted_hop() -> None:
        hops.append(1)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted_hop)
    engine = EngineGame.from_dict(game.state)
    seat = engine.waiting_for[0]
    await sync_to_async(services.game_apply_action)(
        game_id=game.pk,
        user=next(user for user in users if user.pk == game.players[seat]),
        action=choose_action(engine, seat),
        expected_version=game.version,
    )
    for client in clients:
        await client.state_at_least(game.version + 1)
    assert hops == []
    for client in clients:
        await client.close()


@pytest.mark.asyncio
async def test_a_message_is_rate_limited_and_answered_without_going_to_a_thread(
    snapshots, monkeypatch
):
    users = await players(2)
    table = await open_table(users, 2)
    client = (await connect_all(users[:1], table, snapshots))[0]
    await client.send({"type": "ping"})  # the Redis connections are open from here on
    assert (await client.receive("pong"))["type"] == "pong"
    submitted = []
    submit = ThreadPoolExecutor.submit

    def counted_submit(executor, *args, **kwargs):
        submitted.append(args[0])
        return submit(executor, *args, **kwargs)

    monkeypatch.setattr(ThreadPoolExecutor, "submit", counted_submit)
    for _ in range(3):
        await client.send({"type": "ping"})
        assert (await client.receive("pong"))["type"] == "pong"
    assert submitted == []
    await client.close()


def test_a_worker_sends_through_one_loop_that_keeps_its_redis_connections(monkeypatch):
    monkeypatch.setattr(broadcast, "_use_own_loop", True)  # as the worker's start sets it
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    group = "games.test.worker-sends"
    async_to_sync(layer.group_add)(group, channel)
    control = redis.Redis.from_url(settings.REDIS_URL)

    def connections_opened() -> int:
        return control.info("stats")["total_connections_received"]

    broadcast.deliver([broadcast.Message(group, {"type": "table.state", "n": 0})])
    before = connections_opened()
    for number in range(1, 6):
        broadcast.deliver([broadcast.Message(group, {"type": "table.state", "n": number})])
    # A new event loop per send would open a connection each time (other processes aside).
    assert connections_opened() - before <= 1
    control.close()
    received = [async_to_sync(layer.receive)(channel)["n"] for _ in range(6)]
    assert received == list(range(6))


def field_values(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.fields}


def test_the_moves_plain_statements_read_and_write_what_the_orm_does():
    game, users = seated_game(4)
    for _ in range(3):
        bot_move(game, users)
    with transaction.atomic():
        table, locked = lock_game(game.pk)
    # Every column converted as the ORM converts it: JSON, decimals, times, choices.
    assert field_values(locked) == field_values(Game.objects.get(pk=game.pk))
    assert field_values(table) == field_values(Table.objects.get(pk=game.table_id))
    seats = persistence.table_seats(game.table_id)
    expected = Seat.objects.filter(table_id=game.table_id, left_at__isnull=True)
    assert [field_values(seat) for seat in seats] == [
        field_values(seat) for seat in expected.order_by("position")
    ]
    assert [seat.user.username for seat in seats] == [
        seat.user.username for seat in expected.select_related("user").order_by("position")
    ]
    # The stored moves are the ones the ORM reads back, in order, with their times.
    events = list(GameEvent.objects.filter(game=game).order_by("version"))
    assert [event.version for event in events] == [1, 2, 3]
    assert all(event.created_at is not None and event.action for event in events)
    locked.refresh_from_db()
    assert locked.version == 3 and locked.deadline is not None


async def two_players_at_a_move(snapshots) -> tuple:
    """A two-player table with both sockets open: the table, the clients by seat, the game, its
    engine and the seat it waits for."""
    users = await players(2)
    table = await open_table(users, 2)
    clients = await connect_all(users, table, snapshots)
    game = await current_game(table)
    engine = EngineGame.from_dict(game.state)
    return table, clients, game, engine, engine.waiting_for[0]


@pytest.mark.asyncio
async def test_a_move_checks_a_due_session_in_its_own_database_call(
    snapshots, monkeypatch, fast_clients
):
    monkeypatch.setattr(consumers, "SESSION_RECHECK_SECONDS", 0)  # every message is due
    table, clients, game, engine, seat = await two_players_at_a_move(snapshots)
    checked = []
    session_is_valid = consumers.session_closes.session_is_valid

    def counted_check(*args):
        checked.append(args)
        return session_is_valid(*args)

    monkeypatch.setattr(consumers.session_closes, "session_is_valid", counted_check)
    calls = []
    database_sync_to_async = consumers.database_sync_to_async

    def counted_call(work):
        calls.append(work)
        return database_sync_to_async(work)

    monkeypatch.setattr(consumers, "database_sync_to_async", counted_call)
    await clients[seat].send(
        {"type": "act", "action": choose_action(engine, seat), "version": game.version}
    )
    for client in clients:
        await client.state_at_least(game.version + 1)
    # One call to the database threads: the check rode in the move's own.
    assert calls == [consumers._session_checked] and len(checked) == 1
    for client in clients:
        await client.close()


@pytest.mark.asyncio
async def test_a_move_on_an_ended_session_closes_the_socket_and_changes_nothing(
    snapshots, monkeypatch
):
    monkeypatch.setattr(consumers, "SESSION_RECHECK_SECONDS", 0)
    table, clients, game, engine, seat = await two_players_at_a_move(snapshots)
    mover = clients[seat]
    # Ended without any signal, as an expired session's cleanup would.
    await sync_to_async(Session.objects.filter(session_key=mover.session_key).delete)()
    await mover.send(
        {"type": "act", "action": choose_action(engine, seat), "version": game.version}
    )
    # States sent before the move (the other player's arrival) may still be on their way.
    while (output := await mover.communicator.receive_output(timeout=5))["type"] != (
        "websocket.close"
    ):
        assert json.loads(output["text"])["version"] == game.version
    assert output["code"] == consumers.CLOSE_UNAUTHENTICATED
    assert (await current_game(table)).version == game.version
    await clients[1 - seat].close()
