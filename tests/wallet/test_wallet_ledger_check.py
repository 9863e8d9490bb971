"""manage.py ledger_check: a clean ledger passes, any finding fails with a non-zero exit."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games import services as game_services
from games.models import Game, Seat, Table
from games.services.bank import bank_settle
from tests.wallet.conftest import make_balance_stale
from wallet import services
from wallet.models import Account

pytestmark = pytest.mark.django_db


def _run() -> tuple[str, CommandError | None]:
    out = StringIO()
    try:
        call_command("ledger_check", stdout=out)
    except CommandError as error:
        return out.getvalue(), error
    return out.getvalue(), None


def test_clean_ledger_passes(make_user):
    make_user(balance=1_000)
    output, error = _run()
    assert error is None
    assert "checked transactions: 1" in output
    assert "checked entries: 2" in output
    assert "ledger OK: 0 findings" in output


def test_stale_cached_balance_is_a_finding(make_user):
    """The database refuses a stale balance at commit; ledger_check still finds one that got
    past it (triggers turned off, say by a restore)."""
    player = make_user(balance=1_000)
    account = Account.objects.get(user=player)
    make_balance_stale(account.pk, 999)
    output, error = _run()
    assert error is not None
    assert "1 finding" in str(error)
    assert f"account {account.pk}" in output and "entries sum to 1000" in output


def test_finished_game_must_be_settled_exactly_once(make_user):
    players = [make_user(balance=500) for _ in range(2)]
    table = Table.objects.create(stake=500, seat_count=2, created_by=players[0])
    game = Game.objects.create(
        table=table,
        number=1,
        state={},
        seed="00",
        seed_hash="00",
        status="finished",
        players=[player.pk for player in players],
        stake=500,
        bank=1_000,
    )
    output, error = _run()
    assert error is not None
    assert f"finished game {game.pk} has 0 bank settlements" in output

    for seat, player in enumerate(players):
        services.stake_hold(
            user=player, table_id=table.pk, amount=500, idempotency_key=f"hold:{seat}"
        )
    bank_settle(
        table_id=table.pk,
        game_id=game.pk,
        bank=1_000,
        commission_percent=0,
        places=[[1], [0]],
        seat_users={0: players[0].pk, 1: players[1].pk},
        percentages=[100, 0],
    )
    output, error = _run()
    assert error is None, output
    assert "checked finished games: 1" in output


def test_a_table_bank_must_hold_exactly_the_seated_players_stakes(make_user):
    creator, guest = make_user(balance=1_000), make_user(balance=1_000)
    table = game_services.table_create(user=creator, stake=300, seats=3)
    game_services.table_join(table_id=table.pk, user=guest)
    output, error = _run()
    assert error is None, output

    # A table closed with its players stood up but their stakes never released: stuck money.
    Seat.objects.filter(table=table).update(left_at=table.created_at)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
    output, error = _run()
    assert error is not None
    assert f"table {table.pk} (closed) bank holds 600, the stakes of its 0 seated" in output
