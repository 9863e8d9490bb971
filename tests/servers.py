"""Helpers for tests that start real servers (Daphne, Celery, embedded services) as processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

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
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), *self.args]
            + ["durak_site.asgi:application"],
            cwd=BASE_DIR,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def close(self) -> None:
        self.stop()
        self.log.close()
