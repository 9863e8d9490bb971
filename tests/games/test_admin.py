"""Staff pages: tables, games with their log and distribution, exports, payout schemes."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import openpyxl
import pytest
from django.urls import reverse

from games import services
from games.models import PayoutScheme, Table
from games.services import GameError
from tests.games.conftest import STAKE, create_player
from tests.games.test_services import play_out, seated_game

pytestmark = pytest.mark.django_db
GAMES_EXPORT = reverse("admin:games_game_export")


@pytest.fixture
def staff_client(client):
    staff = create_player(balance=0, nickname="croupier")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    return client


def test_changelists_render_with_their_filters(staff_client):
    seated_game(2)
    for name in ("table", "game", "payoutscheme"):
        response = staff_client.get(reverse(f"admin:games_{name}_changelist"))
        assert response.status_code == 200
    response = staff_client.get(
        reverse("admin:games_game_changelist") + "?status__exact=playing&stake_range=small"
    )
    assert response.status_code == 200
    assert response.context["cl"].result_count == 1
    response = staff_client.get(reverse("admin:games_game_changelist") + "?stake_range=large")
    assert response.context["cl"].result_count == 0


def test_a_running_game_hides_its_seed_and_hands_a_finished_one_shows_its_log(staff_client):
    game, users = seated_game(2)
    page = staff_client.get(reverse("admin:games_game_change", args=[game.pk]))
    assert page.status_code == 200
    assert game.seed not in page.content.decode()
    game = play_out(game, users)
    page = staff_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert game.seed in page
    assert f'name="events-TOTAL_FORMS" value="{game.version}"' in page
    assert str(game.distribution.get(seat=0).amount) in page


def test_game_export_lists_players_bank_commission_and_payouts(staff_client):
    game, users = seated_game(2)
    game = play_out(game, users)
    response = staff_client.post(GAMES_EXPORT, {"format": "0", "resource": "0"})
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [int(row["id"]) for row in rows] == [game.pk]
    row = rows[0]
    assert row["bank"] == str(2 * STAKE) and row["commission"] == "0"
    assert row["players"] == ", ".join(user.username for user in users)
    winner = game.distribution.get(place=1)
    assert f"{winner.user.username}: place 1, 100 %, {2 * STAKE}" in row["payouts"]

    response = staff_client.post(GAMES_EXPORT, {"format": "1", "resource": "0"})
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    header, *data = sheet.iter_rows(values_only=True)
    assert dict(zip(header, data[0], strict=True))["bank"] == 2 * STAKE


def test_payout_schemes_are_edited_with_validation(staff_client):
    scheme = PayoutScheme.objects.get(players=3)
    url = reverse("admin:games_payoutscheme_change", args=[scheme.pk])
    response = staff_client.post(url, {"players": 3, "percentages": "[20, 80, 0]"})
    assert response.status_code == 200  # the form comes back with the error
    scheme.refresh_from_db()
    assert scheme.percentages == [80, 20, 0]
    response = staff_client.post(url, {"players": 3, "percentages": "[70, 30, 0]"})
    assert response.status_code == 302
    scheme.refresh_from_db()
    assert scheme.percentages == [70, 30, 0]


def _table_form(table, commission: str) -> dict:
    return {
        "commission_percent": commission,
        "seat_set-TOTAL_FORMS": "0",
        "seat_set-INITIAL_FORMS": "0",
        "seat_set-MIN_NUM_FORMS": "0",
        "seat_set-MAX_NUM_FORMS": "0",
    }


def test_staff_change_the_commission_of_an_open_table_and_nothing_else(staff_client):
    creator = create_player()
    table = services.table_create(user=creator, stake=STAKE, seats=2)
    url = reverse("admin:games_table_change", args=[table.pk])
    response = staff_client.post(url, {**_table_form(table, "5"), "status": "closed"})
    assert response.status_code == 302, response.content.decode()[:2000]
    table.refresh_from_db()
    assert table.commission_percent == Decimal("5") and table.status == Table.Status.OPEN

    response = staff_client.post(url, _table_form(table, "150"))
    assert response.status_code == 200  # the form comes back with its error, no crash
    table.refresh_from_db()
    assert table.commission_percent == Decimal("5")


def test_a_running_games_commission_cannot_be_changed(staff_client):
    game, users = seated_game(2)
    url = reverse("admin:games_table_change", args=[game.table_id])
    staff_client.post(url, _table_form(game.table, "50"))
    game.table.refresh_from_db()
    assert game.table.commission_percent == Decimal("0")
    with pytest.raises(GameError) as refused:
        services.table_set_commission(table_id=game.table_id, commission_percent=Decimal("50"))
    assert refused.value.code == "commission_locked"
    game = play_out(game, users)
    assert game.commission == 0
