"""A database that is unreachable, not migrated or not the platform's is reported in one line."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from tests.servers import free_port, test_database_url

# Each check runs Django in a process of its own.
pytestmark = pytest.mark.slow

BASE_DIR = Path(__file__).resolve().parents[2]


def _server_url(database: str) -> str:
    params = connection.settings_dict
    return f"postgres://{params['USER']}@{params['HOST']}:{params['PORT']}/{database}"


@pytest.fixture
def scratch_database(db):
    """Make a throw-away database on the same server; give its URL; drop it afterwards."""
    made = []

    def make(*statements: str) -> str:
        name = f"scratch_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(_server_url("postgres"), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        with psycopg.connect(_server_url(name), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)
        return _server_url(name)

    yield make
    with psycopg.connect(_server_url("postgres"), autocommit=True) as admin:
        for name in made:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run(args: list[str], database_url: str) -> subprocess.CompletedProcess:
    env = os.environ | {
        "DEBUG": "1",
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "PORT": str(free_port()),
    }
    return subprocess.run(
        [sys.executable, *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=300
    )


def _one_line_refusal(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in (result.stderr + result.stdout).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


UNREACHABLE = "postgres://durak@127.0.0.1:{port}/durak"
MANAGE = [str(BASE_DIR / "manage.py")]
RUN = ["-m", "durak_site.ops.launcher", "run"]


@pytest.mark.parametrize(
    "command",
    [["ledger_check"], ["verify_game", "1"], ["create_first_admin"], ["migrate"]],
    ids=lambda command: command[0],
)
def test_an_unreachable_database_is_named_with_what_to_do(command):
    url = UNREACHABLE.format(port=free_port())
    line = _one_line_refusal(_run(MANAGE + command, url))
    assert "cannot reach the platform's PostgreSQL at 127.0.0.1:" in line
    assert "./dev services start" in line and "DATABASE_URL" in line


@pytest.mark.parametrize(
    "command",
    [["ledger_check"], ["verify_game", "1"], ["createsuperuser", "--noinput"], ["migrate"]],
    ids=lambda command: command[0],
)
def test_a_foreign_database_is_not_taken_for_the_platforms(scratch_database, command):
    url = scratch_database("CREATE TABLE customers (id int)", "CREATE TABLE orders (id int)")
    line = _one_line_refusal(_run(MANAGE + command, url))
    assert "is not the platform's: it holds 2 tables but no ledger tables" in line
    with psycopg.connect(url) as conn:  # and nothing was written into it
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        assert tables.fetchone() == (2,)


@pytest.mark.parametrize(
    "command", [["ledger_check"], ["verify_game", "1"]], ids=lambda command: command[0]
)
def test_an_empty_database_is_reported_as_not_migrated(scratch_database, command):
    line = _one_line_refusal(_run(MANAGE + command, scratch_database()))
    assert "is not migrated (" in line and "migrations pending" in line
    assert "./dev manage migrate" in line


@pytest.mark.live
def test_the_run_command_refuses_an_unreachable_database():
    line = _one_line_refusal(_run(RUN, UNREACHABLE.format(port=free_port())))
    assert "cannot reach the platform's PostgreSQL" in line


@pytest.mark.live
def test_the_run_command_refuses_a_foreign_database(scratch_database):
    url = scratch_database("CREATE TABLE customers (id int)")
    line = _one_line_refusal(_run(RUN, url))
    assert "is not the platform's" in line


@pytest.mark.live
def test_dev_manage_runs_a_command_against_the_platforms_database(transactional_db):
    checked = _run(["-m", "durak_site.ops.launcher", "manage", "ledger_check"], test_database_url())
    assert checked.returncode == 0, checked.stderr
    assert "ledger OK: 0 findings" in checked.stdout
    missing = _run(
        ["-m", "durak_site.ops.launcher", "manage", "verify_game", "999999"], test_database_url()
    )
    assert missing.returncode == 1
    assert "no game 999999" in missing.stderr
