"""Forty four-player tables of bots play across two web hosts behind HAProxy; one web host
fails mid-game; its players come back through HAProxy on the other within seconds, and every
game ends with the money exact and each game replaying to its record (tests/cluster/hosts.py
builds the hosts)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from games.engine.bots import choose_action
from tests.cluster import hosts, site

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(900)]

TABLES = 40
# The server's own limit is 10 messages a second per socket; bots stay under it. They think a
# little, so that every game is still under way when a host fails.
SEND_INTERVAL = 0.11
THINK_SECONDS = (0.2, 0.5)
# How far every game has got before a web host fails.
VERSION_BEFORE_CUT = 6
RECONNECT_SECONDS = 5.0
GAMES_SECONDS = 420.0


@pytest.fixture
def cluster(tmp_path):
    if os.geteuid() != 0 or not shutil.which("ip"):
        pytest.skip("the cluster test builds network namespaces: it runs as root (ip netns)")
    missing = hosts.missing_tools()
    assert not missing, f"missing Debian packages: {' '.join(missing)}"
    built = hosts.Cluster(tmp_path)
    try:
        built.build_network()
        built.start_data()
        built.python("manage.py", "migrate", "--noinput", "-v", "0", pooled=False)
        built.start_web()
        built.start_edge()
        yield built
    finally:
        built.close()


class _Seen:
    """What one seat saw, shaped like the engine for the heuristic bot (it reads only views)."""

    def __init__(self, view: dict) -> None:
        self._view = view

    def view(self, seat: int) -> dict:
        return self._view


class Bot:
    """One player's browser tab through the edge: it reconnects whenever its socket fails and
    moves whenever its seat is the one the game waits for."""

    def __init__(self, url: str, table_id: int, cookie: str) -> None:
        self.url, self.table_id, self.cookie = url, table_id, cookie
        self.rng = random.Random(f"{table_id}:{cookie}")
        self.server: str | None = None  # the web process serving the current socket
        self.state: dict | None = None
        self.first_state_at = 0.0  # on the current socket
        self.sent_at = 0.0
        self.finished = asyncio.Event()
        self.thinking: asyncio.Future | None = None
        self.seat: int | None = None
        self.views_of_others: list[int] = []  # seats whose state reached this player

    @property
    def version(self) -> int:
        return -1 if self.state is None or self.state["game"] is None else self.state["version"]

    async def run(self) -> None:
        while not self.finished.is_set():
            try:
                async with connect(
                    f"ws{self.url[4:]}/ws/table/{self.table_id}/",
                    origin=self.url,
                    additional_headers={"Cookie": self.cookie},
                    open_timeout=5,
                ) as socket:
                    self.server = socket.response.headers.get("X-Served-By")
                    self.first_state_at = 0.0
                    async for frame in socket:
                        message = json.loads(frame)
                        if message["type"] == "state":
                            await self.on_state(socket, message)
                        if self.finished.is_set():
                            return
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                pass
            self.server = None
            await asyncio.sleep(0.1)

    async def on_state(self, socket, state: dict) -> None:
        if not self.first_state_at:
            self.first_state_at = time.monotonic()
        self.state = state
        game = state["game"]
        if game is None:
            return
        if self.seat is None:
            self.seat = state["you"]
        if state["you"] != self.seat:
            self.views_of_others.append(state["you"])
        if game["status"] != "playing":
            self.finished.set()
            return
        view = state["view"]
        if not view["waiting_for"] or view["waiting_for"][0] != state["you"]:
            return
        action = choose_action(_Seen(view), state["you"], self.rng)
        if action is None:
            return
        self.thinking = asyncio.ensure_future(self.act(socket, action, state["version"]))

    async def act(self, socket, action: dict, version: int) -> None:
        """Move after a while, unless the game moved on meanwhile (a deadline passed)."""
        await asyncio.sleep(self.rng.uniform(*THINK_SECONDS))
        await asyncio.sleep(max(0.0, self.sent_at + SEND_INTERVAL - time.monotonic()))
        if self.version != version:
            return
        self.sent_at = time.monotonic()
        with contextlib.suppress(ConnectionClosed):
            await socket.send(json.dumps({"type": "act", "action": action, "version": version}))


async def until(condition, what: str, timeout: float, described=lambda: "") -> None:
    """Wait for `condition`; fail after `timeout` naming `what`, and what `described` says."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what} {described()}")
        await asyncio.sleep(0.05)


def servers_of(cluster: hosts.Cluster, host: hosts.Host) -> set[str]:
    """HAProxy's names of the host's web processes (as ``haproxy_config`` numbers them)."""
    return {
        f"web{number}"
        for number, address in enumerate(cluster.web_servers(), 1)
        if address.startswith(f"{host.address}:")
    }


@pytest.mark.asyncio
async def test_a_web_host_fails_and_its_players_finish_their_games_on_the_other(cluster):
    seeding = subprocess.Popen(
        [sys.executable, "-m", "tests.cluster.site", "seed", str(TABLES)],
        cwd=hosts.BASE_DIR,
        env=cluster.site_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    opened = json.loads(await asyncio.to_thread(seeding.stdout.readline))
    bots = [
        Bot(cluster.url, table["table"], cookie) for table in opened for cookie in table["cookies"]
    ]
    playing = [asyncio.create_task(bot.run()) for bot in bots]
    try:
        await until(lambda: all(bot.state for bot in bots), "every player's first state", 60)
        seeding.stdin.write("\n")
        seeding.stdin.flush()
        game_ids = json.loads(await asyncio.to_thread(seeding.stdout.readline))
        assert seeding.wait(30) == 0 and len(game_ids) == TABLES

        await until(
            lambda: all(bot.version >= VERSION_BEFORE_CUT for bot in bots),
            f"every game past version {VERSION_BEFORE_CUT}",
            120,
        )
        # Each table's sockets on one process (its owner), the tables on both hosts.
        owners = {table["table"]: set() for table in opened}
        for bot in bots:
            owners[bot.table_id].add(bot.server)
        assert all(len(servers) == 1 for servers in owners.values()), owners
        failing = cluster.web[0]
        lost = servers_of(cluster, failing)
        moved = [bot for bot in bots if bot.server in lost]
        assert moved and len(moved) < len(bots), owners
        assert not any(bot.finished.is_set() for bot in bots)

        cut_at = time.monotonic()
        cluster.cut(failing)
        await until(
            lambda: all(bot.server not in lost and bot.first_state_at > cut_at for bot in moved),
            "the failed host's players to have a state from the other",
            RECONNECT_SECONDS,
            lambda: [
                (bot.table_id, bot.server)
                for bot in moved
                if bot.server in lost or bot.first_state_at <= cut_at
            ],
        )
        back = max(bot.first_state_at for bot in moved) - cut_at
        print(f"{len(moved)} players back on the other host {back:.2f} s after the failure")

        await until(
            lambda: all(bot.finished.is_set() for bot in bots), "every game to end", GAMES_SECONDS
        )
    finally:
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        if seeding.poll() is None:
            seeding.kill()

    # Every player saw his own seat's states only, whichever process served him.
    assert sorted(bot.seat for bot in bots) == sorted(list(range(site.SEATS)) * TABLES)
    assert [bot.views_of_others for bot in bots if bot.views_of_others] == []
    report = await asyncio.to_thread(cluster.python, "-m", "tests.cluster.site", "check")
    checked = json.loads(report.splitlines()[-1])
    assert checked["games"] == sorted(game_ids)
    assert checked["unfinished"] == 0
    assert checked["players"] == TABLES * site.SEATS
    assert checked["balances"] + checked["commission"] == checked["players"] * site.OPENING_BALANCE
