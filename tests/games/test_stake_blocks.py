"""Staff block a player from tables with stakes: with a reason and an end, in the audit trail,
shown to the player, and enforced on every way to a seat with a stake; practice stays open."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from durak_site.audit.models import StaffAction
from games import services
from games.models import Game, Seat, StakeBlock, Table
from games.services import GameError
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player
from tests.games.test_services import play_out, seated_game
from tests.players import create_staff
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db

REASON = "Chip dumping with boris"


@pytest.fixture
def staff():
    user = create_staff(nickname="floorman")
    return user


def _block_in_admin(client, staff, player, *, reason=REASON, days=7):
    client.force_login(staff)
    ends_at = timezone.localtime() + timedelta(days=days)
    return client.post(
        reverse("admin:games_stakeblock_add"),
        {
            "user": player.pk,
            "reason": reason,
            "ends_at_0": ends_at.strftime("%d.%m.%Y"),
            "ends_at_1": ends_at.strftime("%H:%M:%S"),
        },
    )


def _block(staff, player, *, days: float = 7) -> StakeBlock:
    return services.stake_block_create(
        staff_user=staff, user=player, reason=REASON, ends_at=timezone.now() + timedelta(days=days)
    )


def _refused(command, **kwargs) -> GameError:
    with pytest.raises(GameError) as refused:
        command(**kwargs)
    assert refused.value.code == "stake_blocked"
    assert REASON in str(refused.value.message)
    return refused.value


def test_a_block_from_the_admin_is_audited_and_refuses_a_seat_telling_until_when_and_why(
    client, staff
):
    anna, host = create_player(nickname="anna"), create_player()
    response = _block_in_admin(client, staff, anna)
    assert response.status_code == 302, response.content[:2000]
    block = StakeBlock.objects.get(user=anna)
    assert block.created_by == staff
    record = StaffAction.objects.get(action="games.stake_block")
    assert (record.staff, record.player, record.reason) == (staff, anna, REASON)
    assert record.target_id == str(block.pk)

    table = services.table_create(user=host, stake=STAKE, seats=2)
    error = _refused(services.table_join, table_id=table.pk, user=anna)
    assert timezone.localtime(block.ends_at).strftime("%Y") in str(error.message)
    assert not Seat.objects.filter(user=anna).exists()
    assert user_balance(user=anna) == OPENING_BALANCE
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN

    client.force_login(anna)
    lobby = client.get(reverse("lobby")).content.decode()
    assert "Администрация закрыла вам доступ к столам со ставками до" in lobby
    assert REASON in lobby
    assert REASON in client.get(reverse("table_detail", args=[table.pk])).content.decode()
    refused = client.post(reverse("table_join", args=[table.pk]), follow=True)
    assert REASON in refused.content.decode()
    assert not Seat.objects.filter(user=anna).exists()


def test_every_way_to_a_stake_seat_is_refused_while_practice_stays_open(staff):
    game, (anna, boris) = seated_game(2)
    play_out(game, [anna, boris])
    services.table_create(user=create_player(), stake=STAKE, seats=2)
    _block(staff, anna)
    balance = user_balance(user=anna)

    _refused(services.table_create, user=anna, stake=STAKE, seats=2)
    _refused(services.quick_play, user=anna, stake=STAKE, seats=2)
    _refused(services.quick_play, user=anna, stake=STAKE * 3)  # would open a new table
    _refused(services.rematch_confirm, game_id=game.pk, user=anna)
    services.rematch_confirm(game_id=game.pk, user=boris)  # the other player is not blocked
    assert not Seat.objects.filter(user=anna, left_at__isnull=True).exists()
    assert user_balance(user=anna) == balance
    assert Table.objects.filter(created_by=anna).count() == 1  # only the first, played table

    practice = services.practice_start(user=anna, players=2, level="novice")
    assert Game.objects.get(table=practice).status == Game.Status.PLAYING


def test_the_block_ends_by_itself(staff):
    anna, host = create_player(), create_player()
    block = _block(staff, anna, days=1)
    StakeBlock.objects.filter(pk=block.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    table = services.table_create(user=host, stake=STAKE, seats=2)
    services.table_join(table_id=table.pk, user=anna)
    assert Seat.objects.filter(user=anna, left_at__isnull=True).exists()


def test_a_block_needs_a_reason_a_future_end_and_another_staff_member(client, staff):
    anna = create_player()
    assert _block_in_admin(client, staff, anna, reason="  ").status_code == 200
    assert _block_in_admin(client, staff, anna, days=-1).status_code == 200
    later = timezone.now() + timedelta(days=1)
    for kwargs in (
        {"staff_user": anna, "user": create_player(), "reason": "x", "ends_at": later},
        {"staff_user": staff, "user": staff, "reason": "x", "ends_at": later},
        {"staff_user": staff, "user": anna, "reason": " ", "ends_at": later},
    ):
        with pytest.raises(GameError):
            services.stake_block_create(**kwargs)
    assert not StakeBlock.objects.exists()
    assert not StaffAction.objects.filter(action="games.stake_block").exists()
