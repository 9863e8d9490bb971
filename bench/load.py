"""Live-play load: N four-player tables, four bot clients each, over real WebSockets.

    python bench/load.py --tables 25 --seconds 60            # bots answer at once
    python bench/load.py --tables 200 --think 1-3            # bots think 1-3 s like people
    python bench/load.py --tables 20 --think 1-3 --flood     # one user floods; tables compared
    python bench/load.py --tables 200 --think 1-3 --idle 20  # 20 tables live on their deadlines
    python bench/load.py ... --json result.json

It runs against a platform that is already running (``TRUSTED_PROXY_COUNT=1 ./dev run``: the
benchmark stands in for the proxy and gives each player his own address) and uses the same
environment (DATABASE_URL/REDIS_URL or the embedded ports) to create its players and tables,
and mints their session cookies the way the tests do. Players are ``bench-N`` and are reused.

A bot acts when its seat is the first the game waits for, with the engine's heuristic bot
picking from the seat's ``legal_actions``, and sends ``act`` with the version it saw. For every
move the latency is timed from the mover's ``act`` to each seat's ``state`` of a later version.
A finished game is followed by a rematch at the same table: each player confirms it over his
socket once he sees the result, as the table page does.

Three players sit at each table, and all bots open their sockets at once; the run prints how
long it took until each had its first state. Then the fourth player of each table sits down,
which deals its game, and the run warms up and measures. With ``--flood`` it then measures
again while one more user floods table 0 from a process of its own (messages within his
limits, over them, and socket churn).

Printed for each run: the machine's speed (engine playouts a second on one core, measured
first), moves/s, latency percentiles for the mover, for every seat and for the last seat of
each move (and apart, of the moves that end a game), errors by code, CPU and RSS (start and
end) of each platform process, PostgreSQL commits and rows read per move, Redis memory and
queue sizes, and a bare websockets echo round trip as the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()
logging.getLogger("websockets").setLevel(logging.WARNING)

import redis  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.asyncio.server import serve  # noqa: E402

from bench.engine import playouts_per_second  # noqa: E402
from bench.stats import (  # noqa: E402
    machine_report,
    percentiles,
    process_report,
    stretch_report,
)
from durak_site.ops import embedded  # noqa: E402
from games import consumers, services  # noqa: E402
from games.engine.bots import choose_action  # noqa: E402
from games.models import Table  # noqa: E402
from tests.players import session_cookie  # noqa: E402
from wallet import services as wallet_services  # noqa: E402
from wallet.selectors import user_balance  # noqa: E402

SEATS = 4
STAKE = 100
# Enough for many rematches; topped up whenever a bench player runs below it.
FUNDS = 10_000_000
CLOCK = time.perf_counter
LAG_TICK_SECONDS = 0.01
# The run is also reported stretch by stretch: the ends of games and the host's share of the
# machine come in bursts that the whole run's percentiles hide.
STRETCH_SECONDS = 10.0
# How long the bots may take to get in before the measured play starts anyway.
OPEN_WAIT_SECONDS = 60.0
# /proc/net/tcp's state of an open connection.
TCP_ESTABLISHED = "01"
# A process's role by what its command line holds, the first match winning.
ROLES = (
    ("daphne", ("daphne",)),
    ("haproxy", ("haproxy",)),
    ("beat", ("celery", " beat")),
    ("worker", ("celery",)),
    ("postgres", ("postgres",)),
    ("redis", ("redis",)),
)

# The web servers' roles.
WEB_ROLES = ("daphne",)


# --- players and tables (sync, through the services like any request) -----------------------


def bench_players(count: int, prefix: str = "bench") -> list:
    users = []
    model = get_user_model()
    for number in range(count):
        name = f"{prefix}-{number}"
        user = model.objects.filter(username=name).first()
        if user is None:
            user = model.objects.create_user(username=name, email=f"{name}@bench.invalid")
        if user_balance(user=user) < FUNDS // 2:
            wallet_services.deposit(
                user=user,
                amount=FUNDS,
                idempotency_key=f"bench-deposit:{user.pk}:{time.time_ns()}",
                initiated_by=None,
                memo="load benchmark",
            )
        users.append(user)
    return users


def leave_old_tables(users: list) -> None:
    """Seats left over by an interrupted run would refuse the new tables' joins."""
    for table in Table.objects.filter(
        seat_set__user__in=users, seat_set__left_at__isnull=True
    ).distinct():
        if table.status == Table.Status.PLAYING:
            # Nobody answers there any more: let the game run out on its timers.
            continue
        for seat in table.seat_set.filter(left_at__isnull=True):
            with contextlib.suppress(services.GameError):
                services.table_leave(table_id=table.pk, user=seat.user)


def open_tables(users: list, tables: int, idle: int) -> list[tuple[int, list[str]]]:
    """Open `tables` four-seat tables with three players seated, the first `idle` of them on
    the shortest clocks; returns (table id, cookie per seat).

    The fourth player sits down once every socket is open (``start_games``). A game started
    before its players could connect would run on its deadlines meanwhile: on a slow machine
    the first of 200 tables waited a minute, and the server played their games out.
    """
    opened = []
    for number in range(tables):
        group = users[number * SEATS : (number + 1) * SEATS]
        clocks = {"turn_seconds": 5, "throw_seconds": 3} if number < idle else {}
        table = services.table_create(user=group[0], stake=STAKE, seats=SEATS, **clocks)
        for user in group[1 : SEATS - 1]:
            services.table_join(table_id=table.pk, user=user)
        # Each player takes the lowest free seat: his position is his place in the group.
        opened.append((table.pk, [session_cookie(user) for user in group]))
    connection.close()
    return opened


def start_games(users: list, opened: list[tuple[int, list[str]]]) -> None:
    """The last player of each table sits down, which deals its game."""
    for number, (table_id, _cookies) in enumerate(opened):
        services.table_join(table_id=table_id, user=users[(number + 1) * SEATS - 1])
    connection.close()


# --- measurements of the platform's processes ----------------------------------------------


def _read(path: str) -> str:
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return ""


def platform_processes() -> dict[int, str]:
    """Processes of this checkout and its data directory (Daphne, Celery, PostgreSQL with its
    backends, Redis)."""
    places = (str(ROOT), str(embedded.VAR_DIR))
    found: dict[int, str] = {}
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        stat = _read(f"/proc/{entry}/stat")
        if stat:
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        cmdline = _read(f"/proc/{entry}/cmdline").replace("\0", " ")
        if not any(place in cmdline for place in places):
            continue
        for role, marker in ROLES:
            if all(part in cmdline for part in marker):
                found[int(entry)] = role
                break
    # PostgreSQL's backends name neither the program nor the checkout: they are its children.
    postmasters = {pid for pid, role in found.items() if role == "postgres"}
    found.update({pid: "postgres" for pid, parent in parents.items() if parent in postmasters})
    return found


def process_sample(pids: dict[int, str]) -> dict[int, tuple[float, int]]:
    """CPU seconds used so far and RSS in bytes, per pid."""
    ticks = os.sysconf("SC_CLK_TCK")
    page = os.sysconf("SC_PAGE_SIZE")
    sample = {}
    for pid in pids:
        stat = _read(f"/proc/{pid}/stat")
        if not stat:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / ticks
        rss = int(fields[21]) * page
        sample[pid] = (cpu, rss)
    return sample


def connections_by_process(pids: dict[int, str], port: int) -> dict[int, int]:
    """Established connections on the platform's port held by each web process: how evenly
    the processes share the sockets, and so the work."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in _read(table).splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == TCP_ESTABLISHED:
                inodes.add(f"socket:[{fields[9]}]")
    held = {}
    for pid, role in pids.items():
        if role in WEB_ROLES:
            descriptors = f"/proc/{pid}/fd"
            with contextlib.suppress(OSError):
                held[pid] = sum(
                    os.readlink(f"{descriptors}/{fd}") in inodes for fd in os.listdir(descriptors)
                )
    return held


def database_counters() -> tuple[int, int]:
    """Commits and rows read (returned + fetched) of this database so far."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT xact_commit, tup_returned + tup_fetched FROM pg_stat_database "
            "WHERE datname = current_database()"
        )
        commits, rows = cursor.fetchone()
    connection.close()
    return int(commits), int(rows)


def broker_sample() -> dict[str, int]:
    """Redis memory and the Celery queue: waiting tasks and tasks held unacknowledged."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return {
            "used_memory": int(client.info("memory")["used_memory"]),
            "keys": int(client.dbsize()),
            "queued": int(client.llen(settings.CELERY_TASK_DEFAULT_QUEUE)),
            "unacked": int(client.hlen("unacked")),
        }
    finally:
        client.close()


def _moment(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def cpu_times() -> tuple[int, int, int]:
    """Clock ticks of all cores since boot: in all, idle (waiting on disks included), and
    stolen by the host of a virtual machine for its other guests."""
    fields = [int(value) for value in _read("/proc/stat").split("\n", 1)[0].split()[1:9]]
    if len(fields) < 8:
        return 0, 0, 0
    return sum(fields), fields[3] + fields[4], fields[7]


def load_average() -> str:
    return " ".join(_read("/proc/loadavg").split()[:3])


# --- the bots --------------------------------------------------------------------------------


@dataclass
class Stats:
    measuring: bool = False
    moves: int = 0
    mover: list[float] = field(default_factory=list)
    every_seat: list[float] = field(default_factory=list)
    last_seat: list[float] = field(default_factory=list)
    # The last seat at the table a flooder watches, apart.
    flooded_table: int | None = None
    last_seat_flooded: list[float] = field(default_factory=list)
    # (when the move was sent, its last seat's latency, whether it ended a game), per move: the
    # moves that end a game also settle the bank and the ratings.
    timeline: list[tuple[float, float, bool]] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    mover_last: int = 0
    timed_moves: int = 0
    deadline_late: list[float] = field(default_factory=list)
    # How late this client's own event loop woke for a timer: a busy client delays the states
    # it times, and this says by how much.
    client_lag: list[float] = field(default_factory=list)
    # (table, seat) of every bot that has had its first state: the platform let it in.
    opened: set[tuple[int, int]] = field(default_factory=set)

    def reset(self) -> None:
        self.moves = self.mover_last = self.timed_moves = 0
        self.deadline_late.clear()
        self.client_lag.clear()
        self.mover.clear()
        self.every_seat.clear()
        self.last_seat.clear()
        self.last_seat_flooded.clear()
        self.timeline.clear()
        self.errors.clear()


def client_address(table_id: int, seat: int) -> str:
    """A player's own address, as a proxy in front of the platform would pass it on: every
    player sits at his own computer, so no address carries more than its share of sockets."""
    return f"10.{table_id // 250 % 250}.{table_id % 250}.{seat + 1}"


class _Seen:
    """What one seat saw, shaped like the engine for the heuristic bot (it reads only views)."""

    def __init__(self, view: dict) -> None:
        self._view = view

    def view(self, seat: int) -> dict:
        return self._view


class BenchTable:
    """Four bots at one table and the moves in flight there."""

    def __init__(
        self, table_id: int, cookies: list[str], args, stats: Stats, idle: bool = False
    ) -> None:
        self.table_id, self.cookies, self.args, self.stats = table_id, cookies, args, stats
        # At an idle table seat 0 never moves: the server acts for it when its deadline passes.
        self.idle = idle
        self.deadline: str | None = None
        self.rng = random.Random(table_id)
        self.pending: dict[int, tuple[float, int, set[int]]] = {}
        self.versions = [-1] * SEATS
        self.sockets: list = [None] * SEATS
        self.game_id: int | None = None
        self.rematched: set[int] = set()  # seats that confirmed this game's rematch
        self.counted_version = -1
        self.tasks: set[asyncio.Task] = set()
        # Each bot keeps to the platform's message rate, as people do by far: a refused move
        # would leave its table waiting for a deadline.
        self.tokens = [consumers.RATE_BURST] * SEATS
        self.refilled_at = [CLOCK()] * SEATS

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self.seat(seat, stop) for seat in range(SEATS)))

    async def seat(self, seat: int, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                async with connect(
                    f"{self.args.ws}/ws/table/{self.table_id}/",
                    origin=self.args.origin,
                    additional_headers={
                        "Cookie": self.cookies[seat],
                        "X-Forwarded-For": client_address(self.table_id, seat),
                    },
                    open_timeout=30,
                    max_size=2**22,
                ) as socket:
                    self.sockets[seat] = socket
                    reader = asyncio.create_task(self.read(seat, socket))
                    stopping = asyncio.create_task(stop.wait())
                    await asyncio.wait({reader, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    for task in (reader, stopping):
                        task.cancel()
                    if stop.is_set():
                        return
                    if not reader.cancelled() and reader.exception() is not None:
                        raise reader.exception()
                    # The server closed the socket: an error as much as a refused move.
                    self.stats.errors[f"closed:{socket.close_code}"] += 1
            except Exception as error:  # noqa: BLE001 - counted, then the bot reconnects
                if stop.is_set():
                    return
                code = getattr(getattr(error, "rcvd", None), "code", None)
                self.stats.errors[
                    f"closed:{code}" if code else f"socket:{type(error).__name__}"
                ] += 1
            finally:
                self.sockets[seat] = None
            await asyncio.sleep(1)

    async def read(self, seat: int, socket) -> None:
        async for frame in socket:
            now = CLOCK()
            message = json.loads(frame)
            kind = message.get("type")
            if kind == "error":
                self.stats.errors[message.get("code")] += 1
            elif kind == "state":
                self.on_state(seat, message, now)

    def on_state(self, seat: int, state: dict, now: float) -> None:
        self.stats.opened.add((self.table_id, seat))
        version = state["version"]
        game = state["game"]
        if game is None:
            return
        if self.game_id is not None and game["id"] < self.game_id:
            # The last states of the game before reach this seat after another seat's first
            # state of the rematch: the table has moved on.
            return
        if game["id"] != self.game_id:
            # A new game (a rematch) restarts the versions.
            self.game_id, self.pending, self.versions = game["id"], {}, [-1] * SEATS
            self.counted_version = version
            self.rematched = set()
        if version <= self.versions[seat]:
            return
        if seat == 0 and self.deadline and self.stats.measuring:
            new = [event for event in state["events"] if event["version"] > self.versions[0]]
            if any(event["automatic"] for event in new):
                late = _moment(state["server_time"]) - _moment(self.deadline)
                self.stats.deadline_late.append(late)
        if seat == 0:
            self.deadline = state["deadline"]
        self.versions[seat] = version
        if version > self.counted_version:
            if self.stats.measuring:
                self.stats.moves += version - self.counted_version
            self.counted_version = version
        for sent_version, (sent_at, mover, waiting) in list(self.pending.items()):
            if sent_version < version and seat in waiting:
                waiting.discard(seat)
                if self.stats.measuring:
                    self.stats.every_seat.append(now - sent_at)
                    if seat == mover:
                        self.stats.mover.append(now - sent_at)
                if not waiting:
                    del self.pending[sent_version]
                    if self.stats.measuring:
                        self.stats.last_seat.append(now - sent_at)
                        ended = game["status"] != "playing"
                        self.stats.timeline.append((sent_at, now - sent_at, ended))
                        if self.table_id == self.stats.flooded_table:
                            self.stats.last_seat_flooded.append(now - sent_at)
                        self.stats.timed_moves += 1
                        self.stats.mover_last += seat == mover
        if game["status"] != "playing":
            # Each player confirms once he sees the result, or again on the whole state a
            # socket gets after reconnecting if his confirmation never left.
            if state.get("rematch") is not None and seat not in self.rematched:
                self.rematched.add(seat)
                self.background(self.rematch(game["id"], seat))
            return
        view = state["view"]
        moves = state["you"] == seat and view["waiting_for"] and view["waiting_for"][0] == seat
        if moves and not (self.idle and seat == 0):
            self.background(self.act(seat, view, version))

    async def rematch(self, game_id: int, seat: int) -> None:
        """Confirm over the seat's socket, as the table page does; a refusal comes back as an
        error and is counted there."""
        await self.token(seat)
        try:
            await self.sockets[seat].send(json.dumps({"type": "rematch", "game": game_id}))
        except Exception:  # noqa: BLE001 - the socket is reconnecting: its next state retries
            if game_id == self.game_id:
                self.rematched.discard(seat)

    async def token(self, seat: int) -> None:
        """Wait for one of the seat's message tokens (the socket's token bucket, mirrored with
        a margin for the network's jitter)."""
        rate = 0.95 * consumers.RATE_PER_SECOND
        now = CLOCK()
        tokens = self.tokens[seat] + (now - self.refilled_at[seat]) * rate
        self.tokens[seat], self.refilled_at[seat] = min(consumers.RATE_BURST, tokens), now
        if self.tokens[seat] < 1:
            await asyncio.sleep((1 - self.tokens[seat]) / rate)
            self.tokens[seat], self.refilled_at[seat] = 1.0, CLOCK()
        self.tokens[seat] -= 1

    def background(self, work) -> None:
        # Reading goes on meanwhile, so a thinking bot still receives (and times) every state.
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def act(self, seat: int, view: dict, version: int) -> None:
        if self.args.think:
            await asyncio.sleep(self.rng.uniform(*self.args.think))
            if self.versions[seat] != version or self.sockets[seat] is None:
                return  # the game moved on meanwhile (a timeout) or the socket went
        action = choose_action(_Seen(view), seat, self.rng)
        if action is None:
            return
        await self.token(seat)
        self.pending[version] = (CLOCK(), seat, set(range(SEATS)))
        with contextlib.suppress(Exception):
            await self.sockets[seat].send(
                json.dumps({"type": "act", "action": action, "version": version})
            )


# --- the flooding user -----------------------------------------------------------------------


FLOODS = ("sync", "over", "churn")


async def flood(kind: str, args, table_id: int, cookie: str, stop: asyncio.Event) -> Counter:
    """One user at another table: `sync` within his limits, `over` them, or socket `churn`."""
    sent: Counter = Counter()
    url = f"{args.ws}/ws/table/{table_id}/"

    async def drain(socket) -> None:
        with contextlib.suppress(Exception):
            async for _frame in socket:
                sent["received"] += 1

    async def sender(rate: float | None) -> None:
        # A socket closed for flooding is opened again at once, as a determined flooder would.
        while not stop.is_set():
            try:
                async with connect(
                    url, origin=args.origin, additional_headers={"Cookie": cookie}, max_size=2**22
                ) as socket:
                    reader = asyncio.create_task(drain(socket))
                    while not stop.is_set():
                        await socket.send('{"type":"sync","version":0}')
                        sent["sync"] += 1
                        await asyncio.sleep(1 / rate if rate else 0)
                    reader.cancel()
            except Exception as error:  # noqa: BLE001 - counted; the flooder goes on
                sent[f"closed:{type(error).__name__}"] += 1
                await asyncio.sleep(0.05)

    async def churner() -> None:
        while not stop.is_set():
            try:
                async with connect(
                    url, origin=args.origin, additional_headers={"Cookie": cookie}, max_size=2**22
                ) as socket:
                    await socket.recv()
                    sent["opened"] += 1
            except Exception as error:  # noqa: BLE001
                sent[f"refused:{type(error).__name__}"] += 1
                await asyncio.sleep(0.05)

    if kind == "sync":
        # Two sockets at 9.5 messages a second each: under both the socket's and the user's limit.
        workers = [sender(9.5), sender(9.5)]
    elif kind == "over":
        workers = [sender(None) for _ in range(8)]
    else:
        workers = [churner() for _ in range(4)]
    await asyncio.gather(*workers)
    return sent


async def flooder_process(args) -> None:
    """The hidden `--flooder KIND` mode: the table id and cookie on stdin's first line, flood
    until stdin closes, then print the traffic counters as JSON."""
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    table_id, cookie = json.loads(await stdin.readline())
    stop = asyncio.Event()
    flooding = asyncio.create_task(flood(args.flooder, args, table_id, cookie, stop))
    print("flooding", flush=True)
    await stdin.read()  # EOF: the measuring process is done
    stop.set()
    sent = await flooding
    sent["cpu_seconds"] = round(time.process_time(), 1)  # the flooder's own, for comparison
    print(json.dumps(sent), flush=True)


class Flooder:
    """A flooder in a process of its own, as a real one is another machine: in the measuring
    process a tight send loop would starve the measuring clients' own event loop."""

    def __init__(self, kind: str, args, table_id: int, cookie: str) -> None:
        self.command = [sys.executable, __file__, "--flooder", kind, "--url", args.url]
        self.start_line = json.dumps([table_id, cookie]).encode() + b"\n"

    async def __aenter__(self) -> Flooder:
        self.process = await asyncio.create_subprocess_exec(
            *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        self.process.stdin.write(self.start_line)
        await self.process.stdin.drain()
        started = await self.process.stdout.readline()
        if started.strip() != b"flooding":
            raise RuntimeError(f"the flooder did not start: {started!r}")
        return self

    async def __aexit__(self, *exc_info) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    async def stop(self) -> dict[str, int]:
        """Stop the flood; the flooder's traffic counters."""
        self.process.stdin.close()
        counters, _ = await self.process.communicate()
        return json.loads(counters)


# --- the floor -------------------------------------------------------------------------------


async def echo_floor(rounds: int = 2000) -> dict:
    """Round trip of a small frame to a bare websockets echo server in this process."""

    async def echo(socket) -> None:
        async for frame in socket:
            await socket.send(frame)

    async with serve(echo, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/") as socket:
            times = []
            for _ in range(rounds):
                started = CLOCK()
                await socket.send('{"type":"ping"}')
                await socket.recv()
                times.append(CLOCK() - started)
    return percentiles(times)


# --- a run -----------------------------------------------------------------------------------


async def loop_lag(stats: Stats, stop: asyncio.Event) -> None:
    while not stop.is_set():
        started = CLOCK()
        await asyncio.sleep(LAG_TICK_SECONDS)
        stats.client_lag.append(CLOCK() - started - LAG_TICK_SECONDS)


async def measure(stats: Stats, args, pids: dict[int, str], seconds: float) -> dict[str, Any]:
    stats.reset()
    procs_start = process_sample(pids)
    cpu_start = cpu_times()
    commits_start, rows_start = await asyncio.to_thread(database_counters)
    broker_start = await asyncio.to_thread(broker_sample)
    started = CLOCK()
    stats.measuring = True
    ticking = asyncio.Event()
    ticker = asyncio.create_task(loop_lag(stats, ticking))
    cpu_marks = [cpu_start]
    while (left := seconds - (CLOCK() - started)) > 0:
        await asyncio.sleep(min(STRETCH_SECONDS, left))
        cpu_marks.append(cpu_times())
    stats.measuring = False
    ticking.set()
    await ticker
    elapsed = CLOCK() - started
    pids.update(platform_processes())  # backends opened meanwhile count from their start
    procs_end = process_sample(pids)
    cpu_end = cpu_times()
    commits_end, rows_end = await asyncio.to_thread(database_counters)
    broker_end = await asyncio.to_thread(broker_sample)
    moves = max(stats.moves, 1)
    return {
        "seconds": round(elapsed, 1),
        "load_average": load_average(),
        "machine": machine_report(cpu_start, cpu_end),
        "moves": stats.moves,
        "moves_per_second": round(stats.moves / elapsed, 1),
        "latency_ms": {
            "mover": percentiles(stats.mover),
            "every_seat": percentiles(stats.every_seat),
            "last_seat": percentiles(stats.last_seat),
            "last_seat_flooded_table": percentiles(stats.last_seat_flooded),
            "last_seat_game_end": percentiles([late for _, late, ended in stats.timeline if ended]),
        },
        "deadline_late_ms": percentiles(stats.deadline_late),
        "client_loop_lag_ms": percentiles(stats.client_lag),
        "mover_served_last_percent": round(100 * stats.mover_last / max(stats.timed_moves, 1), 1),
        "errors": dict(stats.errors),
        "processes": process_report(
            pids, procs_start, procs_end, elapsed, connections_by_process(pids, args.port)
        ),
        "postgres_per_move": {
            "commits": round((commits_end - commits_start) / moves, 1),
            "rows_read": round((rows_end - rows_start) / moves, 1),
        },
        "broker": {"start": broker_start, "end": broker_end},
        "stretches": stretch_report(stats.timeline, started, cpu_marks, STRETCH_SECONDS),
    }


def print_run(title: str, result: dict) -> None:
    latency = result["latency_ms"]
    machine = result["machine"]
    print(
        f"\n== {title}  ({result['seconds']} s, load average {result['load_average']}, "
        f"CPU busy {machine['busy_percent']} % of all cores, "
        f"stolen by the host {machine['stolen_percent']} %)"
    )
    print(f"moves/s {result['moves_per_second']}  ({result['moves']} moves)")
    for name in (
        "mover",
        "every_seat",
        "last_seat",
        "last_seat_flooded_table",
        "last_seat_game_end",
    ):
        row = latency[name]
        if not row["count"]:
            continue
        print(
            f"  {name:<10} n={row['count']:<6} p50 {row['p50']} ms  p90 {row['p90']} ms  "
            f"p99 {row['p99']} ms  max {row['max']} ms"
        )
    print(f"  mover served last: {result['mover_served_last_percent']} % of moves")
    late = result["deadline_late_ms"]
    if late["count"]:
        print(
            f"  deadline late by: p50 {late['p50']} ms  p99 {late['p99']} ms  max {late['max']} ms"
        )
    lag = result["client_loop_lag_ms"]
    print(
        f"  load client's loop late by: p50 {lag['p50']} ms  p99 {lag['p99']} ms  "
        f"max {lag['max']} ms"
    )
    print(f"  errors: {result['errors'] or 'none'}")
    if len(result["stretches"]) > 1:
        print(
            f"  each {STRETCH_SECONDS:.0f} s: last seat p50 / p99, games ended, "
            "machine busy / stolen by the host"
        )
        for row in result["stretches"]:
            seat = row["last_seat"]
            print(
                f"    from {row['from_second']:4.0f} s  {seat['p50']} / {seat['p99']} ms  "
                f"{row['games_ended']:3d}  {row['busy_percent']} / {row['stolen_percent']} %"
            )
    per_move = result["postgres_per_move"]
    print(
        f"  PostgreSQL per move: {per_move['commits']} commits, {per_move['rows_read']} rows read"
    )
    for row in result["processes"]:
        print(
            f"  {row['process']:<14} CPU {row['cpu_percent']:5.1f} %  "
            f"RSS {row['rss_start_mb']} -> {row['rss_mb']} MB"
            + (f"  {row['connections']} connections" if "connections" in row else "")
        )
    start, end = result["broker"]["start"], result["broker"]["end"]
    print(
        f"  Redis memory {start['used_memory'] // 1024} -> {end['used_memory'] // 1024} KiB, "
        f"keys {start['keys']} -> {end['keys']}, queued {start['queued']} -> {end['queued']}, "
        f"unacked {start['unacked']} -> {end['unacked']}"
    )


def machine_speed(seconds: float = 3.0) -> float:
    """Four-player engine playouts a second on one core, before the run: runs on machines of
    different speed (or one machine on different days) are compared by it."""
    return round(playouts_per_second(SEATS, seconds, random.Random(1)), 1)


async def main(args) -> dict[str, Any]:
    speed = machine_speed()
    print(f"machine speed: {speed} engine playouts/s on one core (bench/engine.py's, 4 players)")
    floor = await echo_floor()
    print(f"bare websockets echo: p50 {floor['p50']} ms  p99 {floor['p99']} ms")
    users = await asyncio.to_thread(bench_players, args.tables * SEATS)
    await asyncio.to_thread(leave_old_tables, users)
    opened = await asyncio.to_thread(open_tables, users, args.tables, args.idle)
    pids = platform_processes()
    pace = "thinking {:g}-{:g} s".format(*args.think) if args.think else "answering at once"
    print(
        f"{args.tables} tables, {args.tables * SEATS} bots, {pace}; "
        f"platform processes: {dict(Counter(pids.values()))}"
    )
    pids[os.getpid()] = "load client"  # on the same machine: its share is reported too
    stats = Stats()
    stop = asyncio.Event()
    tables = [
        BenchTable(table_id, cookies, args, stats, idle=number < args.idle)
        for number, (table_id, cookies) in enumerate(opened)
    ]
    running = [asyncio.create_task(table.run(stop)) for table in tables]
    report: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "tables": args.tables,
        "think": args.think,
        "cpus": os.cpu_count(),
        "machine_playouts_per_second": speed,
        "echo_floor_ms": floor,
        "runs": {},
    }
    try:
        # Measured from when every bot is in: how fast a crowd gets in is a figure of its own.
        opening = CLOCK()
        while len(stats.opened) < len(tables) * SEATS and CLOCK() - opening < OPEN_WAIT_SECONDS:
            await asyncio.sleep(0.05)
        report["all_open_seconds"] = round(CLOCK() - opening, 2)
        print(
            f"{len(stats.opened)} of {len(tables) * SEATS} sockets opened with their first state "
            f"in {report['all_open_seconds']} s"
        )
        dealing = CLOCK()
        await asyncio.to_thread(start_games, users, opened)
        report["deal_seconds"] = round(CLOCK() - dealing, 2)
        print(f"{len(tables)} games dealt in {report['deal_seconds']} s")
        await asyncio.sleep(args.warmup)
        report["runs"]["play"] = result = await measure(stats, args, pids, args.seconds)
        print_run("play", result)
        if args.flood:
            flooding_user = (await asyncio.to_thread(bench_players, 1, "bench-flood"))[0]
            cookie = await asyncio.to_thread(session_cookie, flooding_user)
            watched = stats.flooded_table = opened[0][0]
            for kind in FLOODS:
                async with Flooder(kind, args, watched, cookie) as flooder:
                    await asyncio.sleep(2)
                    result = await measure(stats, args, pids, args.seconds)
                    result["flood"] = await flooder.stop()
                base = report["runs"]["play"]["latency_ms"]["last_seat"]["p99"] or 0
                p99 = result["latency_ms"]["last_seat"]["p99"] or 0
                result["p99_vs_no_flood"] = round(p99 / base, 2) if base else None
                report["runs"][f"flood:{kind}"] = result
                print_run(f"flood: {kind}", result)
                print(f"  flood traffic: {result['flood']}")
                print(f"  last-seat p99 vs no flood: x{result['p99_vs_no_flood']}")
    finally:
        stop.set()
        await asyncio.gather(*running, return_exceptions=True)
    return report


def parse_args(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("BENCH_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time per run")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--think", default="", help="bots think this long, e.g. 1-3 (seconds)")
    parser.add_argument("--flood", action="store_true", help="then measure under one flooder")
    parser.add_argument(
        "--idle", type=int, default=0, help="tables (on 5/3 s clocks) whose seat 0 never moves"
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--flooder", choices=FLOODS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.ws = "ws" + args.url.removeprefix("http").rstrip("/")
    args.origin = args.url.rstrip("/")
    args.port = urlsplit(args.url).port or 80
    args.think = tuple(float(part) for part in args.think.split("-")) if args.think else ()
    return args


if __name__ == "__main__":
    arguments = parse_args()
    if arguments.flooder:
        asyncio.run(flooder_process(arguments))
        sys.exit()
    figures = asyncio.run(main(arguments))
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(figures, indent=2))
