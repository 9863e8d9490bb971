"""Two players racing for the last seat from separate database connections."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import services
from games.models import Game, Seat
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
