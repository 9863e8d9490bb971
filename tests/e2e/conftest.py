"""Browser tests: real Chromium (Playwright) against a real Daphne serving the test database.

Daphne runs in a subprocess pointed at the database pytest-django built, so the tests use
``django_db(transaction=True)``: what they write is committed and visible to the server.
Celery tasks of the server go to a Redis database of their own, so no worker of another run
of the platform can pick them up.
"""

from __future__ import annotations

import copy
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from tests import servers
from tests.servers import CeleryProcess, LiveServer, test_database_url

BASE_DIR = Path(__file__).resolve().parents[2]
SCREENSHOTS = BASE_DIR / "test-artifacts" / "screenshots"
# Celery's queues of the e2e server live in their own Redis database.
E2E_REDIS_DB = 7
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _redis_url(db: int) -> str:
    parts = urlsplit(settings.REDIS_URL)
    return urlunsplit(parts._replace(path=f"/{db}"))


@pytest.fixture(scope="session")
def server_env(django_db_setup, django_db_blocker) -> dict[str, str]:
    """The environment of the server's processes: the test database, their own Redis db."""
    with django_db_blocker.unblock():
        database_url = test_database_url()
    return {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": database_url,
        "REDIS_URL": _redis_url(E2E_REDIS_DB),
        "CACHE_KEY_PREFIX": settings.CACHES["default"]["KEY_PREFIX"],
        "CHANNEL_LAYER_PREFIX": settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
        "DJANGO_SETTINGS_MODULE": "durak_site.settings",
        "ACCOUNT_EMAIL_VERIFICATION": "optional",
        # Practice bots move sooner than by default, yet leave the page still between moves.
        "BOT_DELAY_SECONDS": "0.4,0.8",
        # A post-game analysis judges each decision on a few deals only.
        "GAME_ANALYSIS_DEALS": "6",
        "GAME_ANALYSIS_SECONDS": "0.5",
        # Devices may subscribe with a push service on this machine (tests/e2e/test_app_install).
        "PUSH_SERVICE_HOSTS": "127.0.0.1",
    }


@pytest.fixture(scope="session")
def daphne_server(server_env: dict[str, str]) -> Iterator[LiveServer]:
    """Daphne serving durak_site.asgi:application against the test database."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    server = LiveServer(server_env, BASE_DIR / "test-artifacts" / "daphne.log")
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def celery_worker(server_env: dict[str, str]) -> Iterator[CeleryProcess]:
    """A Celery worker for the server's tasks (the bots' moves, deadlines), for the tests of
    one module: elsewhere no deadline fires while a browser test thinks. Tasks left queued
    by an earlier run are purged."""
    worker = servers.celery_worker(server_env, BASE_DIR / "test-artifacts" / "celery.log")
    worker.start()
    try:
        yield worker
    finally:
        worker.close()


@pytest.fixture
def live_url(daphne_server: LiveServer) -> str:
    return daphne_server.url


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    # Playwright's sync API keeps an event loop in this thread while the browser is open (so
    # only for one module: async tests elsewhere need the thread without a running loop); the
    # ORM calls of the tests (funding players, checking the ledger) are plain synchronous calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=BROWSER_ARGS)
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


# What the latest pages of a failed browser test showed, beside the server's last log lines:
# Playwright's own error names only the locator that timed out.
PAGE_REPORT = """() => {
  const table = window.durakTable;
  const toast = document.getElementById("toast");
  return {
    connected: table ? table.connected : null,
    version: table ? table.state.version : null,
    game: table && table.state.game ? [table.state.game.id, table.state.game.status] : null,
    rematch: table ? table.state.rematch : null,
    toast: toast ? toast.textContent : null,
  };
}"""
REPORTED_PAGES = 4
REPORTED_LOG_LINES = 30


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    browser = item.funcargs.get("browser")
    if report.when != "call" or not report.failed or browser is None:
        return
    pages = [page for context in browser.contexts for page in context.pages][-REPORTED_PAGES:]
    lines = []
    for page in pages:
        try:
            lines.append(f"{page.url}: {page.evaluate(PAGE_REPORT)}")
        except Exception as error:  # noqa: BLE001 - a closed or navigating page is reported too
            lines.append(f"{page.url}: unreadable ({error})")
    report.sections.append(("latest pages", "\n".join(lines)))
    for fixture, log in (("daphne_server", "daphne.log"), ("celery_worker", "celery.log")):
        path = BASE_DIR / "test-artifacts" / log
        if fixture in item.fixturenames and path.exists():
            tail = path.read_text(errors="replace").splitlines()[-REPORTED_LOG_LINES:]
            report.sections.append((log, "\n".join(tail)))


@pytest.fixture
def server_sockets(settings) -> Iterator[None]:
    """What the test's own commands send reaches the server's sockets: this process's channel
    layer uses the server's Redis database for the test."""
    from channels.layers import channel_layers

    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    for host in layers["default"]["CONFIG"]["hosts"]:
        host["address"] = _redis_url(E2E_REDIS_DB)
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def screenshot():
    """Save a full-page screenshot under test-artifacts/screenshots/<name>.png."""

    def save(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


@pytest.fixture
def play_out():
    """Finish a game through the service with the heuristic bot playing every seat."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.engine import Game as EngineGame
    from games.engine.bots import choose_action
    from games.models import Game

    def finish(game: Game) -> Game:
        users = get_user_model().objects.in_bulk(game.players)
        while game.status == Game.Status.PLAYING:
            engine = EngineGame.from_dict(game.state)
            seat = engine.waiting_for[0]
            services.game_apply_action(
                game_id=game.pk,
                user=users[game.players[seat]],
                action=choose_action(engine, seat),
                expected_version=game.version,
            )
            game.refresh_from_db()
        return game

    return finish


@pytest.fixture
def off_loop():
    """Run ``fn`` in a plain thread: Playwright's sync API keeps an event loop in this one, and
    the services broadcast to sockets through ``async_to_sync``, which refuses such a thread."""
    import threading

    def run(fn, *args, **kwargs):
        outcome: dict = {}

        def target() -> None:
            try:
                outcome["value"] = fn(*args, **kwargs)
            except BaseException as error:  # handed back to the test below
                outcome["error"] = error
            finally:
                connection.close()

        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    return run


@pytest.fixture(autouse=True)
def _fresh_server_cache() -> None:
    """Every browser test logs its players in from the same address: the server's rate-limit
    counters (in its own Redis database) start each test clean, and so does what it keeps for
    the day from games an earlier test made (the best game of yesterday). Its heartbeats stay."""
    client = redis.Redis.from_url(_redis_url(E2E_REDIS_DB))
    try:
        for counters in ("allauth:rl:*", "rate:*", "watch:*"):
            for key in client.scan_iter(match=cache.make_key(counters), count=1000):
                client.delete(key)
    finally:
        client.close()


@pytest.fixture(autouse=True)
def _close_pages_before_flush(request) -> Iterator[None]:
    """After a browser test, close its pages and wait until the server's last database work
    (marking the players disconnected) is done: the flush that follows truncates every table
    and would deadlock with it."""
    yield
    if "browser" not in request.fixturenames:
        return
    for context in request.getfixturevalue("browser").contexts:
        context.close()
    time.sleep(0.5)  # the server notices the closed sockets and starts its updates
    deadline = time.monotonic() + 10
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state <> 'idle'"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)
