"""Two Daphne processes and a Celery worker share one game through Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.management import call_command
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect

from durak_site.celery import app as celery_app
from durak_site.ops import monitoring
from games import services
from games.engine import Game as EngineGame
from games.engine import split_bank
from games.engine.bots import choose_action
from games.models import Game, GameEvent, Table
from tests import dashboard
from tests.games.conftest import (
    OPENING_BALANCE,
    STAKE,
    Snapshots,
    create_player,
    hidden_cards,
    strings_in,
)
from tests.players import session_cookie
from tests.servers import end_process, free_port, server_env, wait_for_port
from tests.spreadsheets import SCREENSHOTS
from wallet.selectors import user_balance

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

db = database_sync_to_async
BIN = Path(sys.executable).parent
BASE_DIR = Path(settings.BASE_DIR)
# The server's own limit is 10 messages a second per socket; bots stay under it.
SEND_INTERVAL = 0.11


@dataclass(frozen=True)
class Cluster:
    ports: list[int]
    metrics_url: str


@pytest.fixture
def cluster(tmp_path):
    """Two Daphne servers and one Celery worker on the test database, with the server of
    their metrics, stopped afterwards."""
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    metrics_port = free_port()
    # Every test client comes from one address: its limit on socket opens is a crowd's here.
    env = server_env(
        SOCKET_ADDRESS_OPENS_PER_SECOND="1000",
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        METRICS_PORT=str(metrics_port),
    )
    celery_app.control.purge()
    ports = [free_port(), free_port()]
    commands = [
        [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "durak_site.asgi:application"]
        for port in ports
    ] + [
        [str(BIN / "celery"), "-A", "durak_site", "worker", "-P", "solo", "-l", "warning"]
        + ["--without-gossip", "--without-mingle", "--without-heartbeat"],
        [sys.executable, str(BASE_DIR / "manage.py"), "serve_metrics"],
    ]
    processes = []
    for number, command in enumerate(commands):
        log = open(tmp_path / f"process-{number}.log", "wb")  # noqa: SIM115 - closed below
        processes.append(
            (
                subprocess.Popen(
                    command,
                    cwd=BASE_DIR,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                ),
                log,
            )
        )
    try:
        for port, (process, _log) in zip([*ports, None, metrics_port], processes, strict=True):
            if port is not None:
                wait_for_port(port, process)
        yield Cluster(ports, f"http://127.0.0.1:{metrics_port}/metrics")
    finally:
        for process, _log in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process, log in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()


class RemoteClient:
    """A browser on one of the Daphne servers, logged in by its session cookie."""

    def __init__(self, user, port: int, table_id: int, snapshots: Snapshots) -> None:
        self.user, self.port, self.table_id, self.snapshots = user, port, table_id, snapshots
        self.state: dict | None = None
        self.sent_at = 0.0

    async def connect(self) -> None:
        cookie = await db(session_cookie)(self.user)
        self.socket = await connect(
            f"ws://127.0.0.1:{self.port}/ws/table/{self.table_id}/",
            origin=f"http://127.0.0.1:{self.port}",
            additional_headers={"Cookie": cookie},
        )
        await self.state_at_least(0)

    async def act(self, action: dict, version: int) -> None:
        await asyncio.sleep(max(0.0, self.sent_at + SEND_INTERVAL - time.monotonic()))
        self.sent_at = time.monotonic()
        await self.socket.send(json.dumps({"type": "act", "action": action, "version": version}))

    async def state_at_least(self, version: int, timeout: float = 20) -> dict:
        while self.state is None or self.state["version"] < version:
            message = json.loads(await asyncio.wait_for(self.socket.recv(), timeout))
            if message["type"] == "error":
                # A move raced with the worker's timeout: the next state tells what happened.
                assert message["code"] == "stale_version", message
            elif message["type"] == "state":
                await self.check(message)
                self.state = message
        return self.state

    async def check(self, message: dict) -> None:
        game = message["game"]
        if game is None or game["status"] != "playing":
            return
        engine = await db(self.snapshots.at)(game["id"], message["version"])
        played = await db(self.snapshots.played)(game["id"], message["version"])
        leaked = hidden_cards(engine, message["you"], played) & set(strings_in(message))
        assert not leaked, f"{self.user.username} was shown {sorted(leaked)}"


@db
def start_fast_game(users: list) -> Table:
    table = services.table_create(user=users[0], stake=STAKE, seats=2)
    # One-second clocks for the opening lead, so the worker has to move for the leader.
    Table.objects.filter(pk=table.pk).update(turn_seconds=1, throw_seconds=1)
    services.table_join(table_id=table.pk, user=users[1])
    return table


@db
def latest(table: Table | int) -> Game:
    return Game.objects.get(table=table)


async def test_players_on_two_servers_finish_a_game_with_a_worker_moving_on_timeout(cluster):
    users = await db(lambda: [create_player(), create_player()])()
    table = await start_fast_game(users)
    snapshots = Snapshots()
    clients = [
        RemoteClient(user, port, table.pk, snapshots)
        for user, port in zip(users, cluster.ports, strict=True)
    ]
    for client in clients:
        await client.connect()

    # Nobody moves: the worker leads for the idle leader once the deadline passes.
    for client in clients:
        await client.state_at_least(1)
    first = await db(GameEvent.objects.get)(game__table=table, version=1)
    assert first.automatic
    await db(Table.objects.filter(pk=table.pk).update)(turn_seconds=30, throw_seconds=10)

    for _step in range(2000):
        game = await latest(table)
        for client in clients:
            await client.state_at_least(game.version)
        if game.status != Game.Status.PLAYING:
            break
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        await clients[seat].act(choose_action(engine, seat), game.version)
        await clients[seat].state_at_least(game.version + 1)
    else:
        raise AssertionError("the game did not end")

    engine = EngineGame.from_dict(game.state)
    expected = split_bank(2 * STAKE, engine.places, [100, 0])
    for seat, user in enumerate(users):
        assert await db(user_balance)(user=user) == OPENING_BALANCE - STAKE + expected[seat]
    for client in clients:
        assert client.state["game"]["status"] == "finished"
        assert client.state["game"]["seed"] == game.seed
        await client.socket.close()
    await db(call_command)("ledger_check")
    await db(call_command)("verify_game", game.pk)


@db
def playing_tables(count: int) -> list[tuple[Table, list]]:
    tables = []
    for _number in range(count):
        users = [create_player(), create_player()]
        table = services.table_create(user=users[0], stake=STAKE, seats=2)
        services.table_join(table_id=table.pk, user=users[1])
        tables.append((table, users))
    return tables


async def test_two_hundred_sockets_opening_at_once_are_all_served(cluster):
    """A crowd arriving at once (a restart, say) is let in, not timed out at the handshake."""
    tables = await playing_tables(100)
    cookies = await db(lambda: [[session_cookie(user) for user in users] for _t, users in tables])()

    async def first_state(table_id: int, cookie: str, port: int) -> dict:
        async with connect(
            f"ws://127.0.0.1:{port}/ws/table/{table_id}/",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": cookie},
            open_timeout=60,
        ) as socket:
            while True:
                message = json.loads(await asyncio.wait_for(socket.recv(), 60))
                if message["type"] == "state":
                    return message

    opening = [
        first_state(table.pk, cookie, cluster.ports[seat])
        for (table, _users), pair in zip(tables, cookies, strict=True)
        for seat, cookie in enumerate(pair)
    ]
    states = await asyncio.gather(*opening)

    expected = [(table.pk, seat) for table, _users in tables for seat in range(2)]
    assert [(state["table"]["id"], state["you"]) for state in states] == expected


async def play_moves(clients: list[RemoteClient], table: Table | int, moves: int) -> int:
    """The players move (at most `moves` times, fewer if the game ends); the moves made."""
    for made in range(moves):
        game = await latest(table)
        for client in clients:
            await client.state_at_least(game.version)
        if game.status != Game.Status.PLAYING:
            return made
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        await clients[seat].act(choose_action(engine, seat), game.version)
        await clients[seat].state_at_least(game.version + 1)
    return moves


async def game_under_way(cluster: Cluster, moves: int) -> tuple[list[RemoteClient], int]:
    """Two players, one on each server, whose opening lead the worker makes when its one-second
    clock runs out; then they make `moves` moves. The clients, and the moves they made."""
    users = await db(lambda: [create_player(), create_player()])()
    table = await start_fast_game(users)
    snapshots = Snapshots()
    clients = [
        RemoteClient(user, port, table.pk, snapshots)
        for user, port in zip(users, cluster.ports, strict=True)
    ]
    for client in clients:
        await client.connect()
    for client in clients:
        await client.state_at_least(1)
    await db(Table.objects.filter(pk=table.pk).update)(turn_seconds=30, throw_seconds=10)
    return clients, await play_moves(clients, table, moves)


def scrape(url: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of the metrics at `url`, by name and labels."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def scrape_until(url: str, ready, timeout: float = 10) -> dict[tuple[str, frozenset], float]:
    """Scrape until `ready(samples)`: a process updates a metric just after its client hears."""
    deadline = time.monotonic() + timeout
    while True:
        samples = await asyncio.to_thread(scrape, url)
        if ready(samples) or time.monotonic() > deadline:
            return samples
        await asyncio.sleep(0.1)


def value(samples: dict, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


async def test_the_metrics_of_a_game_on_two_servers_and_a_worker_add_up(cluster):
    clients, moves = await game_under_way(cluster, moves=12)
    assert moves == 12

    samples = await scrape_until(
        cluster.metrics_url,
        lambda samples: (
            value(samples, "durak_moves_total", by="player") == moves
            and value(samples, "durak_move_seconds_count", stage="sent") == moves
        ),
    )

    # Both web processes' moves, counted once each, in the histogram and in the counter.
    assert value(samples, "durak_moves_total", by="player") == moves
    assert value(samples, "durak_move_seconds_count", stage="sent") == moves
    assert value(samples, "durak_move_seconds_count", stage="committed") == moves
    committed = value(samples, "durak_move_seconds_sum", stage="committed")
    sent = value(samples, "durak_move_seconds_sum", stage="sent")
    assert 0 < committed < sent < moves * 1.0  # each well under a second on this machine
    assert value(samples, "durak_move_seconds_bucket", stage="sent", le="+Inf") == moves
    # The worker's timeout for the idle leader, late by at most a few loop ticks.
    assert value(samples, "durak_moves_total", by="server") >= 1
    fired = value(samples, "durak_deadline_lateness_seconds_count")
    assert fired >= 1
    assert 0 <= value(samples, "durak_deadline_lateness_seconds_sum") / fired < 5
    # One table socket on each web process, and their sum.
    assert value(samples, "durak_open_sockets", kind="table") == 2
    per_process = {
        dict(labels)["pid"]: count
        for (name, labels), count in samples.items()
        if name == "durak_process_open_sockets" and dict(labels)["kind"] == "table"
    }
    assert sorted(per_process.values()) == [1, 1] and len(per_process) == 2
    # Counted at the scrape: the game, the table, its players, the processes by role.
    assert value(samples, "durak_games_playing") == 1
    assert value(samples, "durak_tables", status="playing") == 1
    assert value(samples, "durak_players_seated", status="playing") == 2
    assert value(samples, "durak_role_processes_alive", role="worker") == 1
    assert value(samples, "durak_role_processes_alive", role="deadline-loop") == 1
    # Both servers, and this test's process, which beats as the web tier (web_serving).
    assert value(samples, "durak_role_processes_alive", role="web") == 3
    assert value(samples, "durak_celery_queue_length") >= 0
    assert value(samples, "durak_channel_layer_waiting_messages", server="0") >= 0

    for client in clients:
        await client.socket.close()
    samples = await scrape_until(
        cluster.metrics_url,
        lambda samples: value(samples, "durak_open_sockets", kind="table") == 0,
    )
    assert value(samples, "durak_open_sockets", kind="table") == 0


@pytest.fixture
def prometheus(cluster, tmp_path):
    """A real Prometheus scraping the cluster's metrics every second, with the alert rules;
    its base URL. Skipped where Prometheus is not installed."""
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("Prometheus is not installed (Debian: apt-get install prometheus)")
    config = monitoring.prometheus_config(urllib.parse.urlsplit(cluster.metrics_url).netloc)
    config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
    (tmp_path / "prometheus.yml").write_text(json.dumps(config))
    port = free_port()
    with open(tmp_path / "prometheus.log", "wb") as log:
        process = subprocess.Popen(
            [
                binary,
                f"--config.file={tmp_path / 'prometheus.yml'}",
                f"--storage.tsdb.path={tmp_path / 'prometheus'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, process)
            url = f"http://127.0.0.1:{port}"
            wait_until_ready(f"{url}/-/ready")
            # Scraping before the game begins: rates count the moves from zero.
            async_to_sync(prometheus_answers)(url, 'durak_moves_total{by="player"} == 0')
            yield url
        finally:
            end_process(process)


def wait_until_ready(url: str, timeout: float = 30) -> None:
    """Prometheus listens before it answers queries: 503 until its storage is ready."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


async def prometheus_answers(base_url: str, query: str, timeout: float = 20) -> list:
    """The instant query's result once it has one (Prometheus scrapes once a second)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await asyncio.to_thread(
            dashboard.prometheus_get, base_url, "/api/v1/query", query=query
        )
        if answer["result"]:
            return answer["result"]
        if time.monotonic() > deadline:
            targets = dashboard.prometheus_get(base_url, "/api/v1/targets")["activeTargets"]
            raise AssertionError(f"no answer to {query}; scrapes: {targets}")
        await asyncio.sleep(0.2)


async def test_the_dashboard_drawn_from_prometheus_shows_the_game(cluster, prometheus):
    clients, moves = await game_under_way(cluster, moves=6)
    # Every move scraped, twice over, so that the panels' rates have more than one point.
    for _round in range(2):
        await prometheus_answers(prometheus, f'sum(durak_moves_total{{by="player"}}) == {moves}')
        moves += await play_moves(clients, clients[0].table_id, 6)
    await prometheus_answers(prometheus, f'sum(durak_moves_total{{by="player"}}) == {moves}')

    layout = json.loads(monitoring.DASHBOARD.read_text())
    drawn = {
        panel["id"]: await asyncio.to_thread(dashboard.panel_series, prometheus, panel, 60)
        for panel in layout["panels"]
    }
    page = SCREENSHOTS / "monitoring-dashboard.html"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dashboard.render(layout, drawn, page)
    picture = SCREENSHOTS / "monitoring-dashboard-1280.png"
    picture.unlink(missing_ok=True)
    height = dashboard.page_height(layout)
    await asyncio.to_thread(
        subprocess.run,
        [os.environ.get("CHROMIUM_PATH") or shutil.which("chromium"), "--headless", "--no-sandbox"]
        + ["--disable-gpu", f"--screenshot={picture}", f"--window-size=1280,{height}"]
        + [page.as_uri()],
        check=True,
        capture_output=True,
        timeout=60,
    )
    for client in clients:
        await client.socket.close()
    # Their servers done with them: a server stopped while it still closes one waits long.
    await scrape_until(
        cluster.metrics_url, lambda samples: value(samples, "durak_open_sockets", kind="table") == 0
    )

    by_title = {panel["title"]: drawn[panel["id"]] for panel in layout["panels"]}

    def last(title: str, legend: str) -> float:
        values = dict(by_title[title])[legend]
        return values[-1][1]

    move_time = dict(by_title["Move time (receipt to commit, to the last seat's send)"])
    assert set(move_time) == {"p50 committed", "p99 committed", "p50 sent", "p99 sent"}
    assert 0 < last("Move time (receipt to commit, to the last seat's send)", "p99 sent") < 1
    assert last("Moves per second", "by player") > 0
    assert last("Open sockets", "table") == 2
    assert [legend for legend, _values in by_title["Open sockets per web process"]] == [
        f"table pid {pid}"
        for pid in sorted(
            legend.split()[-1] for legend, _v in by_title["Open sockets per web process"]
        )
    ] and len(by_title["Open sockets per web process"]) == 2
    assert 0 <= last("Deadline lateness", "p99") < 10
    assert last("Games, tables, players", "games playing") == 1
    assert last("Games, tables, players", "players seated") == 2
    assert last("Processes alive by role", "worker") == 1
    assert {"channel layer", "Celery queue"} <= set(dict(by_title["Queues"]))
    # Every alert rule evaluates against these metrics without an error.
    rules = await asyncio.to_thread(dashboard.prometheus_get, prometheus, "/api/v1/rules")
    health = {rule["name"]: rule["health"] for group in rules["groups"] for rule in group["rules"]}
    assert len(health) == 9 and set(health.values()) == {"ok"}, health
    assert picture.stat().st_size > 10_000
