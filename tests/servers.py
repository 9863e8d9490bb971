"""Helpers for tests that start real servers (Daphne, Celery, embedded services) as processes."""

from __future__ import annotations

import socket
import subprocess
import time

from django.db import connection


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
