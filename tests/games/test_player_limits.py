"""Breaks from play and loss limits at the one place where a seat is taken with a stake."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from games import services
from games.models import Game, Seat, Table
from games.services import GameError
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player
from tests.games.test_services import play_out, seated_game
from wallet import limits
from wallet.models import PlayerLimit
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db


def test_a_player_on_a_break_can_neither_open_nor_join_a_table_with_stakes():
    host, resting = create_player(), create_player()
    table = services.table_create(user=host, stake=STAKE, seats=3)
    limits.break_start(user=resting, length="30d")

    with pytest.raises(GameError) as refused:
        services.table_join(table_id=table.pk, user=resting)
    assert refused.value.code == "self_excluded"
    with pytest.raises(GameError) as refused:
        services.table_create(user=resting, stake=STAKE, seats=2)
    assert refused.value.code == "self_excluded"

    assert user_balance(user=resting) == OPENING_BALANCE
    assert not Seat.objects.filter(user=resting).exists()
    assert Table.objects.count() == 1
    call_command("ledger_check")


def test_a_stake_that_could_pass_the_loss_limit_is_refused():
    host, player = create_player(), create_player()
    limits.limit_set(user=player, kind=PlayerLimit.Kind.LOSS_DAY, value=STAKE + STAKE // 2)
    first = services.table_create(user=host, stake=STAKE, seats=3)
    services.table_join(table_id=first.pk, user=player)  # one stake at risk: within the limit
    second = services.table_create(user=host, stake=STAKE, seats=3)

    with pytest.raises(GameError) as refused:
        services.table_join(table_id=second.pk, user=player)

    assert refused.value.code == "limit_reached"
    assert user_balance(user=player) == OPENING_BALANCE - STAKE
    services.table_leave(table_id=first.pk, user=player)  # the stake comes back
    services.table_join(table_id=second.pk, user=player)
    assert user_balance(user=player) == OPENING_BALANCE - STAKE


def test_a_rematch_is_refused_to_a_player_who_started_a_break():
    game, users = seated_game(2)
    game = play_out(game, users)
    limits.break_start(user=users[0], length="24h")
    with pytest.raises(GameError) as refused:
        services.rematch_confirm(game_id=game.pk, user=users[0])
    assert refused.value.code == "self_excluded"
    assert not Game.objects.filter(table=game.table, number=2).exists()
    call_command("ledger_check")
