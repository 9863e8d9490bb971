"""Is the configured database the platform's, reachable and migrated? One line if not.

``manage.py`` asks before every command that reads the database, and ``./dev run`` through it,
so that a wrong port, a stopped server or a foreign database is reported as what it is, with
what to do, instead of as a traceback from deep inside a query.
"""

from __future__ import annotations

import sys

from django.db import DEFAULT_DB_ALIAS, OperationalError, connections
from django.db.migrations.executor import MigrationExecutor

# Commands that never touch the database, or whose job is to bring it up to date.
NO_DATABASE = frozenset(
    {
        "check",
        "collectstatic",
        "compilemessages",
        "diffsettings",
        "help",
        "makemessages",
        "makemigrations",
        "version",
    }
)
# Also backup: a release backs up just before it migrates.
MIGRATING = frozenset({"migrate", "showmigrations", "sqlmigrate", "dbshell", "backup"})
# A table every migrated platform database has: the money ledger.
LEDGER_TABLE = "wallet_ledgertransaction"


def describe(alias: str = DEFAULT_DB_ALIAS) -> str:
    """Where the database is, without the password."""
    database = connections[alias].settings_dict
    return f"{database['HOST'] or 'localhost'}:{database['PORT'] or 5432}/{database['NAME']}"


def database_problem(*, migrating: bool = False, alias: str = DEFAULT_DB_ALIAS) -> str | None:
    """One line saying what is wrong with the database and what to do, or None if it is fine.

    With ``migrating``, an empty or partly migrated database is fine (the caller migrates it);
    one that holds tables but is not the platform's never is.
    """
    connection = connections[alias]
    where = describe(alias)
    try:
        # Straight to the server: the connection pool would retry for its whole timeout.
        with connection.wrap_database_errors:
            connection.Database.connect(**connection.get_connection_params()).close()
        tables = set(connection.introspection.table_names())
    except OperationalError as error:
        reason = first_cause(error)
        return (
            f"cannot reach the platform's PostgreSQL at {where} ({reason}). Start it with "
            "./dev services start, or point DATABASE_URL (or EMBEDDED_PG_PORT) at the server "
            "the platform runs on."
        )
    if tables and LEDGER_TABLE not in tables and not _platform_migrations_started(connection):
        return (
            f"the database at {where} is not the platform's: it holds {len(tables)} tables but "
            "no ledger tables. Point DATABASE_URL (or EMBEDDED_PG_PORT) at the platform's "
            "database, or at an empty one to start afresh."
        )
    if migrating:
        return None
    pending = _pending_migrations(connection)
    if pending:
        return (
            f"the database at {where} is not migrated ({pending} migrations pending). "
            "Run ./dev manage migrate (./dev run migrates by itself)."
        )
    return None


def first_cause(error: Exception) -> str:
    """ "Connection refused" out of psycopg's 'connection to server at ... failed: ...'."""
    lines = str(error).strip().splitlines() or ["no answer"]
    return lines[0].rsplit("failed: ", 1)[-1].removeprefix("FATAL:").strip()


def _platform_migrations_started(connection) -> bool:
    """A migration of the platform's own apps was applied: a half-migrated platform database."""
    if "django_migrations" not in connection.introspection.table_names():
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM django_migrations WHERE app = 'accounts' LIMIT 1")
        return cursor.fetchone() is not None


def _pending_migrations(connection) -> int:
    executor = MigrationExecutor(connection)
    return len(executor.migration_plan(executor.loader.graph.leaf_nodes()))


def refuse_if_not_ready(argv: list[str]) -> None:
    """Before a ``manage.py`` command: print the database's problem in one line and exit 1."""
    command = argv[1] if len(argv) > 1 else "help"
    if command in NO_DATABASE or command.startswith("-"):
        return
    problem = database_problem(migrating=command in MIGRATING)
    if problem:
        print(f"[durak] {problem}", file=sys.stderr)
        sys.exit(1)
