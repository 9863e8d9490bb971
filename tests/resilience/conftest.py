"""Real processes for the resilience tests.

One supervised platform (``launcher run``), shared by the tests that kill its processes: it
serves the test database and the test Redis from the embedded servers this test run uses, so
the tests see its data through the ORM, and its supervisor restarts those servers too.

And, for tests that keep one tier down for a while (which a supervisor would not allow), one
Daphne process (the whole web tier) and one Celery worker of their own, for one module. They
serve the same database, so no platform may serve it meanwhile (the shared platform runs only
from the first to the last test that uses it).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from django.db import connection

from durak_site.ops import embedded, launcher
from tests.servers import (
    BASE_DIR,
    CeleryProcess,
    LiveServer,
    celery_worker,
    free_port,
    server_env,
    wait_for_port,
)

# Names of the supervised children, as the launcher logs them.
CHILDREN = (launcher.web_process_name(1), "worker", "beat")
SERVERS = ("postgres", "redis")
PLATFORM = pytest.StashKey["Platform"]()


class Platform:
    """A running ``launcher run``: its address, its log, and its children by name."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env, self.log_path = env, log_path
        self.port = int(env["PORT"])
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start ``launcher run`` unless it runs; wait until it serves and its worker is ready."""
        if self.process is not None:
            return
        self.log_path.touch()
        since = len(self.log())
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "durak_site.ops.launcher", "run"],
                cwd=BASE_DIR,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_for_port(self.port, self.process, timeout=120)
        self.wait_for(self.healthy, "the platform to answer")
        self.wait_for(lambda: self.worker_ready(since), "the worker to be ready")

    def stop(self) -> None:
        """Ctrl-C, as an operator would: every child stops and the launcher exits cleanly."""
        if self.process is None:
            return
        children = psutil.Process(self.process.pid).children(recursive=True)
        process, self.process = self.process, None
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.returncode == 0, self.log()[-4000:]
        _gone, alive = psutil.wait_procs(children, timeout=5)
        assert not alive, f"processes left running after Ctrl-C: {alive}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for(
        self, condition: Callable[[], object], what: str, timeout: float = 60, every: float = 0.05
    ):
        """Poll `condition` until it returns something true; fail with `what` after `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                raise AssertionError(f"the launcher is not running while waiting for {what}")
            result = condition()
            if result:
                return result
            time.sleep(every)
        tail = self.log()[-4000:]
        raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{tail}")

    def pid(self, name: str) -> int | None:
        """The pid of a supervised child or embedded server, None while it is not running."""
        if name in SERVERS:
            return server_pid(name)
        # A run logs JSON lines (durak_site.ops.json_logs); the launcher's event names the child.
        started = re.findall(rf'"event": "{re.escape(name)} started \(pid (\d+)\)"', self.log())
        if not started:
            return None
        pid = int(started[-1])
        return pid if psutil.pid_exists(pid) and _alive(pid) else None

    def kill(self, name: str) -> int:
        """``kill -9`` the child or server `name`; returns the pid it had."""
        pid = self.wait_for(lambda: self.pid(name), f"{name} to run")
        os.kill(pid, signal.SIGKILL)
        return pid

    def wait_back(self, name: str, old_pid: int, timeout: float = 60) -> int:
        """Wait until `name` runs again under a new pid (and answers, for servers).

        The test run started the embedded servers, so it starts a stopped one again itself: the
        launcher looks after only the servers it started."""
        if name in SERVERS:
            self.wait_for(lambda: not embedded.status()[name], f"{name} to stop answering")
            self.wait_for(lambda: _started_again(name), f"{name} to start again", timeout, 0.5)

        def back() -> int | None:
            pid = self.pid(name)
            if pid is None or pid == old_pid:
                return None
            if name in SERVERS and not embedded.status()[name]:
                return None
            return pid

        return self.wait_for(back, f"{name} to come back", timeout)

    def healthy(self) -> bool:
        return self.health()[0] == 200

    def health(self) -> tuple[int | None, dict]:
        """/healthz's status and body; (None, {}) while nothing answers."""
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())
        except (urllib.error.URLError, OSError):
            return None, {}

    def worker_ready(self, since: int = 0) -> bool:
        """Whether a worker logged that it is ready after log offset `since`."""
        return re.search(r"celery@\S+ ready\.", self.log()[since:]) is not None


def _started_again(name: str) -> bool:
    """Start the embedded server `name` if it is down; whether it answers now. A killed
    PostgreSQL refuses to start until its last backends have gone."""
    try:
        embedded.start(postgres=name == "postgres", redis=name == "redis")
    except RuntimeError:
        return False
    return embedded.status()[name]


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def server_pid(name: str) -> int | None:
    """The pid of the embedded PostgreSQL (postmaster) or Redis, None when it is not running."""
    pidfile = (
        embedded.VAR_DIR / "postgres" / "postmaster.pid"
        if name == "postgres"
        else embedded.VAR_DIR / "redis" / "redis.pid"
    )
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if _alive(pid) else None


def platform_env(port: int) -> dict[str, str]:
    """``launcher run`` on this test run's data: the test database on the embedded server."""
    env = server_env(
        PORT=str(port),
        HOST="127.0.0.1",
        WEB_PROCESSES="1",
        NIGHTLY_BACKUP_AT="off",
        EMBEDDED_PG_DATABASE=connection.settings_dict["NAME"],
        EMBEDDED_PG_PORT=str(embedded.PG_PORT),
        EMBEDDED_REDIS_PORT=str(embedded.REDIS_PORT),
        PYTHONUNBUFFERED="1",
    )
    # The embedded servers, not URLs: so the supervisor keeps them running.
    env.pop("DATABASE_URL")
    env.pop("REDIS_URL")
    return env


@pytest.fixture(scope="session")
def platform(request, django_db_setup, django_db_blocker, tmp_path_factory) -> Platform:
    """``launcher run`` serving the test database, shared by the tests that use it.

    It starts with the first of them and stops after the last (see ``pytest_runtest_teardown``),
    so that its worker never touches the data of other tests.
    """
    if not all(embedded.needed()):
        pytest.skip("the supervised platform runs on the embedded PostgreSQL and Redis")
    with django_db_blocker.unblock():
        env = platform_env(free_port())
    platform = Platform(env, tmp_path_factory.mktemp("platform") / "launcher.log")
    request.config.stash[PLATFORM] = platform
    yield platform
    platform.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    result = yield
    if "platform" in item.fixturenames and (
        nextitem is None or "platform" not in nextitem.fixturenames
    ):
        item.config.stash[PLATFORM].stop()
    return result


@pytest.fixture
def live_platform(platform) -> Platform:
    """The shared platform, with every child and server running before and after the test."""
    platform.start()
    for name in (*CHILDREN, *SERVERS):
        platform.wait_for(lambda name=name: platform.pid(name), f"{name} to run")
    platform.wait_for(platform.healthy, "the platform to answer")
    yield platform
    for name in (*CHILDREN, *SERVERS):
        platform.wait_for(lambda name=name: platform.pid(name), f"{name} to run again")
    platform.wait_for(platform.healthy, "the platform to answer again")
    # A server that was restarted broke this process's connection: start the next one fresh.
    connection.close()


LOGS = BASE_DIR / "test-artifacts" / "resilience"


@pytest.fixture(scope="module")
def tier_env(django_db_setup, django_db_blocker) -> dict[str, str]:
    with django_db_blocker.unblock():
        return server_env()


@pytest.fixture(scope="module")
def web(tier_env: dict[str, str]) -> Iterator[LiveServer]:
    """One Daphne process: the whole web tier. A test that stops it starts it again."""
    server = LiveServer(tier_env, LOGS / "daphne.log")
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def worker(tier_env: dict[str, str]) -> Iterator[CeleryProcess]:
    """One Celery worker: it runs the deadline loop and the timers."""
    process = celery_worker(tier_env, LOGS / "worker.log")
    process.start()
    try:
        yield process
    finally:
        process.close()
