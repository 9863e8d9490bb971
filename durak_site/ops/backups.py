"""Logical backups of the platform's database, and restoring one with a check of the books.

A backup is one ``pg_dump`` in custom format, taken with the client binaries of the embedded
PostgreSQL (so the machine needs no PostgreSQL packages). ``pg_dump`` reads everything in one
snapshot, so a backup taken while players play is consistent: every transaction is in it
entirely or not at all. Files are named by their UTC time and the newest ``BACKUP_KEEP`` are
kept.

Restoring never overwrites the live database in place: the dump goes into a fresh database,
which is migrated and audited with ``ledger_check``; only if the books balance does it take the
platform database's name, and the database it replaces is kept under another name.

Nothing here needs Django's settings: the launcher calls it before Django is set up.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, urlsplit

import dj_database_url
import psycopg
from celery.schedules import crontab
from psycopg import sql

from durak_site.ops import embedded
from durak_site.ops.readiness import first_cause

BASE_DIR = Path(__file__).resolve().parents[2]
BACKUP_PATTERN = "durak-*.dump"


class BackupError(Exception):
    """A backup or restore that could not be done; the message says why and what to do."""


@dataclass(frozen=True)
class Restored:
    database: str
    balanced: bool
    ledger_report: str
    previous: str | None  # the name the replaced database is kept under, if there was one
    kept_for_inspection: str | None  # the restored copy, when its books do not balance


def backup_dir() -> Path:
    return Path(os.environ.get("BACKUP_DIR") or embedded.VAR_DIR / "backups")


def backup_keep() -> int:
    return int(os.environ.get("BACKUP_KEEP", "14"))


def database_url() -> str:
    return os.environ.get("DATABASE_URL") or embedded.DEFAULT_DATABASE_URL


def _libpq_env(url: str, *, database: str | None = None) -> dict[str, str]:
    """libpq's variables for ``url`` (the password stays out of the process list)."""
    parsed = dj_database_url.parse(url)
    values = {
        "PGHOST": parsed.get("HOST") or "localhost",
        "PGPORT": str(parsed.get("PORT") or 5432),
        "PGUSER": parsed.get("USER") or "",
        "PGPASSWORD": parsed.get("PASSWORD") or "",
        "PGDATABASE": database or parsed["NAME"],
    }
    return os.environ | {name: value for name, value in values.items() if value}


def _where(url: str) -> str:
    parsed = dj_database_url.parse(url)
    return f"{parsed.get('HOST') or 'localhost'}:{parsed.get('PORT') or 5432}/{parsed['NAME']}"


def _run_client(args: list[str], *, env: dict[str, str], what: str) -> None:
    result = subprocess.run(args, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines() or [f"exit code {result.returncode}"]
        raise BackupError(f"{what} failed: {lines[0].removeprefix(Path(args[0]).name + ': ')}")


def nightly_schedule(at: str) -> dict[str, dict]:
    """Celery beat's entry for the nightly backup at ``at`` ("HH:MM", UTC), none for "off"."""
    at = at.strip().lower()
    if at == "off":
        return {}
    hour, _, minute = at.partition(":")
    try:
        hour, minute = int(hour), int(minute or 0)
        if not (0 <= hour < 24 and 0 <= minute < 60):
            raise ValueError(at)
    except ValueError as error:
        raise ValueError(f'NIGHTLY_BACKUP_AT must be "HH:MM" (UTC) or "off", not "{at}"') from error
    # A backup missed while beat was down is not worth taking hours late: the next one comes.
    options = {"expires": 6 * 3600}
    return {
        "nightly-backup": {
            "task": "durak_site.tasks.nightly_backup",
            "schedule": crontab(hour=hour, minute=minute),
            "options": options,
        }
    }


# --- backup ----------------------------------------------------------------------------------


def create_backup(*, folder: Path | None = None, keep: int | None = None) -> Path:
    """Dump the platform's database to a new timestamped file; keep only the newest ``keep``."""
    folder = folder or backup_dir()
    keep = backup_keep() if keep is None else keep
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    final = folder / f"durak-{stamp}.dump"
    # Written under another name first: a dump cut short never looks like a backup.
    partial = folder / f".{final.name}.partial"
    try:
        _run_client(
            [embedded.pg_bin("pg_dump"), "--format=custom", "--no-password"]
            + ["--file", str(partial)],
            env=_libpq_env(database_url()),
            what=f"pg_dump of {_where(database_url())}",
        )
        partial.rename(final)
    finally:
        partial.unlink(missing_ok=True)
    prune(folder=folder, keep=keep)
    return final


def prune(*, folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` backups in ``folder``; return the deleted ones."""
    backups = sorted(folder.glob(BACKUP_PATTERN))  # the UTC timestamp in the name sorts them
    doomed = backups[: max(0, len(backups) - max(keep, 1))]
    for path in doomed:
        path.unlink()
    return doomed


# --- restore ---------------------------------------------------------------------------------


def restore(path: Path) -> Restored:
    """Restore the dump ``path`` as the platform's database if its books balance."""
    if not path.is_file():
        raise BackupError(f"no backup file {path}")
    url = database_url()
    target = dj_database_url.parse(url)["NAME"]
    stamp = datetime.now(UTC).strftime("%Y%m%d_%H%M%S")
    staging = f"{target}_restoring"
    with _server(url) as server:
        _refuse_if_in_use(server, target)
        server.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(staging)))
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(staging)))
    staging_url = with_database(url, staging)
    try:
        _run_client(
            [embedded.pg_bin("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error"]
            + ["--single-transaction", "--no-password", "--dbname", staging, str(path)],
            env=_libpq_env(url, database=staging),
            what=f"pg_restore of {path.name}",
        )
        # A backup from an older release is brought up to this release's schema.
        _manage(["migrate", "--noinput", "-v", "0"], database_url=staging_url)
    except BackupError:
        _drop(url, staging)
        raise
    checked = _manage(["ledger_check"], database_url=staging_url, check=False)
    report = (checked.stdout + checked.stderr).strip()
    if checked.returncode != 0:
        return Restored(target, False, report, previous=None, kept_for_inspection=staging)
    previous = f"{target}_before_restore_{stamp}"
    with _server(url) as server:
        _refuse_if_in_use(server, target)
        if _exists(server, target):
            _rename(server, target, previous)
        else:
            previous = None
        _rename(server, staging, target)
    return Restored(target, True, report, previous=previous, kept_for_inspection=None)


def with_database(url: str, database: str) -> str:
    """``url`` with another database name; credentials and options stay."""
    return urlsplit(url)._replace(path=f"/{quote(database)}").geturl()


def _server(url: str) -> psycopg.Connection:
    """A connection to the server's maintenance database, to create and rename databases."""
    try:
        return psycopg.connect(with_database(url, "postgres"), autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as error:
        raise BackupError(
            f"cannot reach the PostgreSQL server of {_where(url)} ({first_cause(error)}). "
            "Start it with ./dev services start, or point DATABASE_URL at it."
        ) from error


def _exists(server: psycopg.Connection, database: str) -> bool:
    found = server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database])
    return found.fetchone() is not None


def _refuse_if_in_use(server: psycopg.Connection, database: str) -> None:
    sessions = server.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
        [database],
    ).fetchone()[0]
    if sessions:
        raise BackupError(
            f"the database {database} is in use (open connections: {sessions}): stop the platform "
            "(Ctrl-C in ./dev run, or stop its Daphne and Celery processes) and restore again."
        )


def _rename(server: psycopg.Connection, old: str, new: str) -> None:
    server.execute(
        sql.SQL("ALTER DATABASE {} RENAME TO {}").format(sql.Identifier(old), sql.Identifier(new))
    )


def _drop(url: str, database: str) -> None:
    with _server(url) as server:
        server.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(database)))


def _manage(
    args: list[str], *, database_url: str, check: bool = True
) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), *args],
        cwd=BASE_DIR,
        env=os.environ | {"DATABASE_URL": database_url},
        capture_output=True,
        text=True,
    )
    if check and result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines() or ["no output"]
        raise BackupError(f"manage.py {args[0]} on the restored copy failed: {lines[-1]}")
    return result
