"""The embedded PostgreSQL and Redis start, keep their data between runs, and stop cleanly."""

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import redis

from tests.servers import free_port

pytestmark = pytest.mark.live

BASE_DIR = Path(__file__).resolve().parents[2]


def _python(code: str, env: dict) -> str:
    """What `code` prints, run by a Python of its own (the embedded module reads its settings
    from the environment when it is imported)."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


def _embedded(call: str, env: dict) -> str:
    return _python(f"from durak_site.ops import embedded; print(embedded.{call})", env)


def test_start_reuse_and_stop(tmp_path):
    pg_port, redis_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}} | {
        "DURAK_VAR_DIR": str(tmp_path / "var"),
        "EMBEDDED_PG_PORT": str(pg_port),
        "EMBEDDED_REDIS_PORT": str(redis_port),
    }
    pg_url = f"postgres://durak@127.0.0.1:{pg_port}/durak"
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    try:
        assert "postgres_started=True, redis_started=True" in _embedded("start()", env)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (value text)")
            conn.execute("INSERT INTO kept VALUES ('still here')")
        assert redis.Redis.from_url(redis_url).ping()

        # A second start finds both running and starts nothing.
        assert "postgres_started=False, redis_started=False" in _embedded("start()", env)
        # Later commands find the ports this data folder's servers were started on.
        without_ports = {k: v for k, v in env.items() if not k.startswith("EMBEDDED_")}
        assert _embedded("PG_PORT, embedded.REDIS_PORT", without_ports).split() == [
            str(pg_port),
            str(redis_port),
        ]

        _embedded("stop()", env)
        assert "{'postgres': False, 'redis': False}" in _embedded("status()", env)

        _embedded("start()", env)
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT value FROM kept").fetchone() == ("still here",)
    finally:
        _embedded("stop()", env)
    assert "{'postgres': False, 'redis': False}" in _embedded("status()", env)


SUPERVISED_RUN = """
import time
from durak_site.ops import embedded
from durak_site.ops import launcher

launcher._log_for("run")  # the run's log, where the launcher says what it restarts
started = embedded.start()  # as ./dev run begins: Redis is someone else's, PostgreSQL its own
servers = launcher.EmbeddedServers(started)
embedded.stop()  # both stop answering
servers.check(time.monotonic())
print("after the check:", embedded.status())
launcher._stop_embedded(started)  # as ./dev run ends
print("after the run:", embedded.status())
"""


def test_a_run_looks_after_the_servers_it_started_and_leaves_the_others_alone(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}} | {
        "DURAK_VAR_DIR": str(tmp_path / "var"),
        "EMBEDDED_PG_PORT": str(free_port()),
        "EMBEDDED_REDIS_PORT": str(free_port()),
    }
    try:
        assert "redis_started=True" in _embedded("start(postgres=False)", env)
        printed = _python(SUPERVISED_RUN, env)
        assert "after the check: {'postgres': True, 'redis': False}" in printed
        assert "after the run: {'postgres': False, 'redis': False}" in printed
        assert "embedded postgres not answering; starting again" in printed
    finally:
        _embedded("stop()", env)
