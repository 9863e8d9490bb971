"""Quick play: one click to a seat at the oldest fitting open table, or at a new one."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game, Seat, Table
from games.services import GameError
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player
from wallet import limits
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db


def test_quick_play_seats_at_the_oldest_open_table_with_the_stake_and_seats():
    older = services.table_create(user=create_player(), stake=STAKE, seats=3)
    services.table_create(user=create_player(), stake=STAKE, seats=3)  # newer
    services.table_create(user=create_player(), stake=STAKE * 2, seats=3)  # other stake
    services.table_create(user=create_player(), stake=STAKE, seats=2)  # other size
    player = create_player()
    table = services.quick_play(user=player, stake=STAKE, seats=3)
    assert table.pk == older.pk
    assert Seat.objects.filter(table=older, user=player, left_at__isnull=True).exists()
    assert user_balance(user=player) == OPENING_BALANCE - STAKE


def test_quick_play_with_any_number_of_players_takes_the_oldest_table_of_any_size():
    oldest = services.table_create(user=create_player(), stake=STAKE, seats=5)
    services.table_create(user=create_player(), stake=STAKE, seats=2)
    assert services.quick_play(user=create_player(), stake=STAKE).pk == oldest.pk


def test_quick_play_opens_a_table_when_none_fits_and_skips_private_and_own_tables():
    player = create_player()
    services.table_create(user=create_player(), stake=STAKE, seats=2, private=True)
    own = services.table_create(user=player, stake=STAKE, seats=3)
    table = services.quick_play(user=player, stake=STAKE, seats=3)
    assert table.pk != own.pk
    assert table.status == Table.Status.OPEN and table.seat_count == 3 and table.stake == STAKE
    assert table.created_by == player


def test_the_last_seat_starts_the_game():
    first = create_player()
    table = services.quick_play(user=first, stake=STAKE, seats=2)
    second = create_player()
    assert services.quick_play(user=second, stake=STAKE, seats=2).pk == table.pk
    assert Game.objects.get(table=table).players == [first.pk, second.pk]


def test_a_short_balance_is_refused_clearly_and_nothing_is_opened():
    poor = create_player(balance=STAKE - 1)
    services.table_create(user=create_player(), stake=STAKE, seats=2)
    tables = Table.objects.count()
    with pytest.raises(GameError) as refused:
        services.quick_play(user=poor, stake=STAKE, seats=2)
    assert refused.value.code == "insufficient_funds"
    assert Table.objects.count() == tables
    assert not Seat.objects.filter(user=poor).exists()


def test_bad_quick_play_requests_are_refused():
    player = create_player()
    for stake, seats, code in [
        (0, 2, "invalid_stake"),
        ("100", 2, "invalid_stake"),
        (STAKE, 7, "invalid_seats"),
        (STAKE, 1, "invalid_seats"),
    ]:
        with pytest.raises(GameError) as refused:
            services.quick_play(user=player, stake=stake, seats=seats)
        assert refused.value.code == code


def test_quick_play_respects_a_break_from_play_through_the_seat_taking_service():
    player = create_player()
    services.table_create(user=create_player(), stake=STAKE, seats=2)
    limits.break_start(user=player, length="7d")
    tables = Table.objects.count()
    with pytest.raises(GameError) as refused:
        services.quick_play(user=player, stake=STAKE, seats=2)
    assert refused.value.code == "self_excluded"
    assert Table.objects.count() == tables
    assert user_balance(user=player) == OPENING_BALANCE
