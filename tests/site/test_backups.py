"""Backups: a known history survives backup, the loss of the database and a restore, exactly."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import psycopg
import pytest
from celery.schedules import crontab
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from psycopg import sql

from durak_site import tasks
from durak_site.audit.models import StaffAction
from durak_site.ops import backups, embedded
from games import services as game_services
from games.models import Game, GameEvent
from tests.games.test_services import play_out, seated_game
from tests.players import create_player, create_staff
from tests.servers import test_database_url
from wallet import services as wallet_services
from wallet import withdrawals
from wallet.models import Account, Entry, LedgerTransaction, Withdrawal

BASE_DIR = Path(__file__).resolve().parents[2]


def _dev(*args: str, database_url: str, backup_dir: Path) -> subprocess.CompletedProcess:
    env = os.environ | {
        "DEBUG": "1",
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "BACKUP_DIR": str(backup_dir),
    }
    return subprocess.run(
        [sys.executable, "-m", "durak_site.ops.launcher", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _server(database: str = "postgres") -> psycopg.Connection:
    return psycopg.connect(backups.with_database(test_database_url(), database), autocommit=True)


def _databases() -> set[str]:
    with _server() as server:
        return {row[0] for row in server.execute("SELECT datname FROM pg_database")}


def _drop(*names: str) -> None:
    with _server() as server:
        for name in names:
            server.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def make_history() -> None:
    """Deposits, finished games with payouts, a held stake, a withdrawal, a staff debit."""
    staff = create_staff(nickname="operator")
    game, users = seated_game(2)
    play_out(game, users)
    game, users = seated_game(3)
    play_out(game, users)
    waiting = create_player(balance=50_000)
    game_services.table_create(user=waiting, stake=10_000, seats=4)
    paid = withdrawals.withdrawal_request(
        user=users[0], amount=12_345, payout_details="card", request_key="w:1"
    )
    withdrawals.withdrawal_approve(withdrawal_id=paid.pk, staff_user=staff, payout_reference="p1")
    withdrawals.withdrawal_request(
        user=users[1], amount=23_456, payout_details="card", request_key="w:2"
    )
    wallet_services.staff_adjust(
        user=users[1], amount=-100, reason="chargeback", staff_user=staff, idempotency_key="a:1"
    )


def books() -> dict:
    """Everything that must come back exactly: every balance, entry, transaction and event."""
    return {
        "accounts": list(
            Account.objects.order_by("pk").values_list(
                "pk", "kind", "user_id", "table_id", "balance"
            )
        ),
        "transactions": list(
            LedgerTransaction.objects.order_by("pk").values_list(
                "pk", "kind", "idempotency_key", "fingerprint", "game_id", "created_at"
            )
        ),
        "entries": list(
            Entry.objects.order_by("pk").values_list(
                "pk", "transaction_id", "account_id", "amount", "balance_after"
            )
        ),
        "games": list(
            Game.objects.order_by("pk").values_list("pk", "status", "version", "state", "seed")
        ),
        "events": list(
            GameEvent.objects.order_by("pk").values_list(
                "pk", "game_id", "version", "bout", "seat", "action", "automatic", "created_at"
            )
        ),
        "withdrawals": list(
            Withdrawal.objects.order_by("pk").values_list("pk", "status", "amount")
        ),
        "audit": list(StaffAction.objects.order_by("pk").values_list("pk", "action", "reason")),
    }


@pytest.mark.live
def test_backup_loss_of_the_database_and_restore_give_back_the_same_books(
    transactional_db, tmp_path
):
    make_history()
    before = books()
    assert len(before["games"]) == 2 and len(before["events"]) > 20
    url = test_database_url()

    backed_up = _dev("backup", database_url=url, backup_dir=tmp_path)
    assert backed_up.returncode == 0, backed_up.stderr
    [dump] = tmp_path.glob("durak-*.dump")
    assert f"backup written: {dump}" in backed_up.stdout

    # The disaster: the database is gone.
    name = connection.settings_dict["NAME"]
    # As if the platform were stopped: every pooled connection goes, however many earlier
    # tests left open, so none is handed out dead after the restore.
    connection.close()
    connection.close_pool()
    _drop(name)
    assert name not in _databases()

    restored = _dev("restore", str(dump), database_url=url, backup_dir=tmp_path)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "ledger OK: 0 findings" in restored.stdout
    assert f"restored {dump} as the database {name}: the books balance" in restored.stdout
    assert f"{name}_restoring" not in _databases()

    assert books() == before
    for game in Game.objects.filter(status=Game.Status.FINISHED):
        out = StringIO()
        call_command("verify_game", game.pk, stdout=out)
        assert f"OK game {game.pk}" in out.getvalue()


@pytest.fixture
def target(transactional_db):
    """An existing database that a restore replaces; every database it leaves is dropped."""
    name = f"drill_{os.getpid()}"
    _drop(name)
    with _server() as server:
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield name
    _drop(*[database for database in _databases() if database.startswith(name)])


@pytest.mark.live
def test_a_restore_keeps_the_database_it_replaces_and_refuses_one_in_use(target, tmp_path):
    create_player(balance=777)
    url = backups.with_database(test_database_url(), target)
    source = _dev("backup", database_url=test_database_url(), backup_dir=tmp_path)
    assert source.returncode == 0, source.stderr
    [dump] = tmp_path.glob("durak-*.dump")

    with _server(target):  # the platform still holds a connection
        refused = _dev("restore", str(dump), database_url=url, backup_dir=tmp_path)
    assert refused.returncode == 1
    assert (
        f"the database {target} is in use (open connections: 1): stop the platform"
        in refused.stdout
    )
    assert _databases() & {target, f"{target}_restoring"} == {target}

    restored = _dev("restore", str(dump), database_url=url, backup_dir=tmp_path)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    [previous] = [name for name in _databases() if name.startswith(f"{target}_before_restore_")]
    assert f"the database it replaced is kept as {previous}" in restored.stdout
    with _server(previous) as old:  # the replaced one is the empty database it was
        assert old.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ).fetchone() == (0,)
    with _server(target) as new:
        assert new.execute("SELECT count(*) FROM wallet_ledgertransaction").fetchone() == (1,)


def test_the_nightly_task_writes_a_dump_and_keeps_the_newest(db, tmp_path, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", test_database_url())
    monkeypatch.setenv("BACKUP_DIR", str(tmp_path))
    monkeypatch.setenv("BACKUP_KEEP", "2")
    (tmp_path / "notes.txt").write_text("not a backup")
    written = [Path(tasks.nightly_backup()) for _ in range(3)]
    assert sorted(tmp_path.glob("durak-*.dump")) == written[1:]
    assert (tmp_path / "notes.txt").exists()
    listing = subprocess.run(
        [embedded.pg_bin("pg_restore"), "--list", str(written[-1])], capture_output=True, text=True
    )
    assert listing.returncode == 0 and "wallet_ledgertransaction" in listing.stdout


def test_a_failed_dump_leaves_no_file_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://durak@127.0.0.1:1/durak")
    with pytest.raises(backups.BackupError, match="pg_dump of 127.0.0.1:1/durak failed: .*"):
        backups.create_backup(folder=tmp_path, keep=2)
    assert list(tmp_path.iterdir()) == []


def test_the_nightly_schedule_is_configurable_and_can_be_off():
    entry = backups.nightly_schedule("04:30")["nightly-backup"]
    assert entry["task"] == "durak_site.tasks.nightly_backup"
    assert entry["schedule"] == crontab(hour=4, minute=30)
    assert backups.nightly_schedule("off") == {}
    for wrong in ("25:00", "3:61", "soon"):
        with pytest.raises(ValueError, match="NIGHTLY_BACKUP_AT"):
            backups.nightly_schedule(wrong)


@pytest.mark.live
def test_restore_names_an_unreachable_server_in_one_line(tmp_path):
    dump = tmp_path / "durak-20260101-000000-000000.dump"
    dump.write_bytes(b"PGDMP")
    result = _dev(
        "restore",
        str(dump),
        database_url="postgres://durak@127.0.0.1:1/durak",
        backup_dir=tmp_path,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.strip().splitlines() == [
        "[durak] cannot reach the PostgreSQL server of 127.0.0.1:1/durak (Connection refused). "
        "Start it with ./dev services start, or point DATABASE_URL at it."
    ]
