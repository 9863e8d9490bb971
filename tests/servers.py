"""Helpers for tests that start real servers (Daphne, Celery, embedded services) as processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from django.conf import settings
from django.db import connection

BASE_DIR = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    """Wait until ``process`` listens on loopback ``port``; fail fast if it exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def test_database_url() -> str:
    """A DATABASE_URL for the test database, so a server process shares the test's data."""
    database = connection.settings_dict
    password = f":{database['PASSWORD']}" if database.get("PASSWORD") else ""
    host = database["HOST"] or "127.0.0.1"
    port = database["PORT"] or 5432
    return f"postgres://{database['USER']}{password}@{host}:{port}/{database['NAME']}"


test_database_url.__test__ = False  # a helper, not a test, despite its name


def server_env(**overrides: str) -> dict[str, str]:
    """The environment of a Daphne or Celery process that serves this test run's data, with
    `overrides`."""
    return {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CACHE_KEY_PREFIX": settings.CACHES["default"]["KEY_PREFIX"],
        "CHANNEL_LAYER_PREFIX": settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
        "CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "DJANGO_SETTINGS_MODULE": "durak_site.settings",
        **overrides,
    }


def end_process(
    process: subprocess.Popen | None, sig: int = signal.SIGTERM, timeout: float = 10
) -> None:
    """Send `sig` and wait for the process to end, killing it after `timeout` seconds."""
    if process is None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class LiveServer:
    """A Daphne subprocess on a loopback port (more Daphne options in ``args``); ``stop`` and
    ``start`` again drop every connection."""

    def __init__(self, env: dict[str, str], log_path: Path, args: tuple[str, ...] = ()) -> None:
        self.env = env
        self.args = args
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log = open(log_path, "w")  # noqa: SIM115 - closed by close()

    def start(self) -> None:
        command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
        command += [*self.args, "durak_site.asgi:application"]
        self.process = subprocess.Popen(
            command,
            cwd=BASE_DIR,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.port, self.process)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        end_process(self.process, sig)
        self.process = None

    def close(self) -> None:
        self.stop()
        self.log.close()


class CeleryProcess:
    """A Celery worker or beat subprocess (``celery -A durak_site`` plus `args`) with its log;
    ``stop`` and ``start`` again, or ``kill`` it."""

    def __init__(
        self, env: dict[str, str], log_path: Path, args: tuple[str, ...], ready: str
    ) -> None:
        self.env = env
        self.args = args
        self.ready = ready
        self.process: subprocess.Popen | None = None
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path = log_path
        self.log = open(log_path, "w")  # noqa: SIM115 - closed by close()

    def start(self, timeout: float = 30) -> None:
        """Start the process and wait until its log says it is ready."""
        logged = self.log.tell()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "durak_site", *self.args],
            cwd=BASE_DIR,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        with open(self.log_path) as log:
            log.seek(logged)
            seen = ""
            while self.ready not in seen:
                if self.process.poll() is not None:
                    raise RuntimeError(f"celery exited with code {self.process.returncode}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"celery did not log {self.ready!r} in {timeout} s")
                time.sleep(0.1)
                seen += log.read()

    def stop(self, sig: int = signal.SIGTERM) -> None:
        end_process(self.process, sig, timeout=15)
        self.process = None

    def close(self) -> None:
        self.stop()
        self.log.close()


def celery_worker(env: dict[str, str], log_path: Path) -> CeleryProcess:
    """A worker of four threads that forgets tasks queued before it started."""
    return CeleryProcess(
        env,
        log_path,
        ("worker", "-P", "threads", "-c", "4", "-l", "info")
        + ("--without-gossip", "--without-mingle", "--purge"),
        ready=" ready.",
    )


def wait_until_database_quiet(database_url: str, timeout: float = 10) -> None:
    """Wait until no other session of the database is busy, e.g. so that emptying the tables
    after a test never deadlocks with a server process still finishing its work."""
    with psycopg.connect(database_url, autocommit=True) as database:
        deadline = time.monotonic() + timeout
        quiet = 0
        while quiet < 3 and time.monotonic() < deadline:
            busy = database.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state NOT IN ('idle')"
            ).fetchone()[0]
            quiet = quiet + 1 if busy == 0 else 0
            time.sleep(0.05)
