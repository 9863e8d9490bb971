"""Two players racing for the last seat from separate database connections."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from games import services
from games.models import Game, Seat, Table
from games.services import GameError
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("round_", range(3))
def test_exactly_one_of_two_racers_gets_the_last_seat(round_):
    creator, first, second = (create_player() for _ in range(3))
    table = services.table_create(user=creator, stake=STAKE, seats=2)
    start = threading.Barrier(2)
    outcomes: dict[int, str] = {}

    def race(user) -> None:
        try:
            start.wait()
            services.table_join(table_id=table.pk, user=user)
            outcomes[user.pk] = "seated"
        except GameError as error:
            outcomes[user.pk] = error.code
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(user,)) for user in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(outcomes.values()) in (["seated", "table_not_open"], ["seated", "table_full"])
    winner = first if outcomes[first.pk] == "seated" else second
    loser = second if winner is first else first
    assert user_balance(user=winner) == OPENING_BALANCE - STAKE
    assert user_balance(user=loser) == OPENING_BALANCE
    assert not Seat.objects.filter(user=loser).exists()
    assert Game.objects.get(table=table).players == [creator.pk, winner.pk]


def run_together(*calls) -> list:
    """Run the calls at the same moment, each on its own database connection."""
    start = threading.Barrier(len(calls))
    outcomes: list = [None] * len(calls)

    def run(index: int, call) -> None:
        try:
            start.wait()
            outcomes[index] = call()
        except GameError as error:
            outcomes[index] = error.code
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def abandoned_table(creator) -> Table:
    table = services.table_create(user=creator, stake=STAKE, seats=3)
    Seat.objects.filter(table=table).update(joined_at=timezone.now() - timedelta(days=1))
    return table


@pytest.mark.parametrize("round_", range(3))
def test_a_join_racing_the_expiry_either_sits_first_or_is_refused(round_):
    creator, guest = create_player(), create_player()
    table = abandoned_table(creator)

    expired, joined = run_together(
        lambda: services.table_expire(table_id=table.pk),
        lambda: services.table_join(table_id=table.pk, user=guest),
    )

    table.refresh_from_db()
    if expired is True:
        assert joined == "table_not_open"
        assert table.status == Table.Status.CLOSED
        assert user_balance(user=creator) == OPENING_BALANCE
        assert user_balance(user=guest) == OPENING_BALANCE
        assert not Seat.objects.filter(user=guest).exists()
    else:
        assert expired is False
        assert isinstance(joined, Seat)
        assert table.status == Table.Status.OPEN
        assert user_balance(user=creator) == OPENING_BALANCE - STAKE
        assert user_balance(user=guest) == OPENING_BALANCE - STAKE
    call_command("ledger_check")


def test_two_sweepers_expiring_one_table_return_the_stake_once():
    creator = create_player()
    table = abandoned_table(creator)

    outcomes = run_together(*[lambda: services.table_expire(table_id=table.pk)] * 2)

    assert sorted(outcomes) == [False, True]
    assert user_balance(user=creator) == OPENING_BALANCE
    call_command("ledger_check")


@pytest.mark.parametrize("round_", range(3))
def test_two_quick_plays_racing_for_the_last_seat_seat_one_there_and_the_other_at_a_new_table(
    round_,
):
    creator, first, second = (create_player() for _ in range(3))
    table = services.table_create(user=creator, stake=STAKE, seats=2)
    outcomes = run_together(
        lambda: services.quick_play(user=first, stake=STAKE, seats=2).pk,
        lambda: services.quick_play(user=second, stake=STAKE, seats=2).pk,
    )
    assert sorted(outcome == table.pk for outcome in outcomes) == [False, True]
    winner, loser = (first, second) if outcomes[0] == table.pk else (second, first)
    assert Game.objects.get(table=table).players == [creator.pk, winner.pk]
    new_table = Table.objects.get(pk=outcomes[1] if winner is first else outcomes[0])
    assert new_table.status == Table.Status.OPEN and new_table.created_by == loser
    assert list(Seat.objects.filter(table=new_table).values_list("user", flat=True)) == [loser.pk]
    assert user_balance(user=winner) == OPENING_BALANCE - STAKE
    assert user_balance(user=loser) == OPENING_BALANCE - STAKE
