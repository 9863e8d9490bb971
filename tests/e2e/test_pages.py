"""The game pages and form endpoints through Django's test client (real PostgreSQL and Redis)."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from django.urls import reverse

from games import services
from games.engine import Game as EngineGame
from games.models import Game, PayoutScheme, Rating, Seat, Table
from tests.players import create_player, create_staff
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db

FUNDS = 500_00
_numbers = itertools.count(1)


def player(*, funds: int = FUNDS):
    return create_player(balance=funds)


def logged_in(client, user):
    client.force_login(user)
    return client


def embedded_state(response) -> dict:
    match = re.search(
        r'<script id="initial-state" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    return json.loads(match.group(1))


def test_lobby_asks_visitors_to_log_in(client):
    response = client.get(reverse("lobby"))
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]


def test_creating_a_table_turns_roubles_into_kopecks_and_holds_the_stake(client):
    user = player()
    response = logged_in(client, user).post(
        reverse("table_create"),
        {"stake": "12.34", "seats": "3", "turn_seconds": "45", "throw_seconds": "15"},
    )
    table = Table.objects.get(created_by=user)
    assert response["Location"] == reverse("table_detail", args=[table.pk])
    assert (table.stake, table.seat_count, table.turn_seconds, table.throw_seconds) == (
        1234,
        3,
        45,
        15,
    )
    assert not table.private
    assert user_balance(user=user) == FUNDS - 1234


@pytest.mark.parametrize(
    "data",
    [
        {"stake": "0", "seats": "2", "turn_seconds": "30", "throw_seconds": "10"},
        {"stake": "-5", "seats": "2", "turn_seconds": "30", "throw_seconds": "10"},
        {"stake": "1.234", "seats": "2", "turn_seconds": "30", "throw_seconds": "10"},
        {"stake": "ten", "seats": "2", "turn_seconds": "30", "throw_seconds": "10"},
        {"stake": "10", "seats": "7", "turn_seconds": "30", "throw_seconds": "10"},
        {"stake": "10", "seats": "2", "turn_seconds": "1", "throw_seconds": "10"},
    ],
)
def test_a_bad_table_form_is_refused_and_moves_no_money(client, data):
    user = player()
    response = logged_in(client, user).post(reverse("table_create"), data)
    assert response.status_code == 400
    assert "errorlist" in response.content.decode()
    assert not Table.objects.exists()
    assert user_balance(user=user) == FUNDS


def test_creating_a_table_without_money_shows_why(client):
    user = player(funds=0)
    response = logged_in(client, user).post(
        reverse("table_create"),
        {"stake": "10", "seats": "2", "turn_seconds": "30", "throw_seconds": "10"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert "Not enough money in the wallet." in response.content.decode()
    assert not Table.objects.exists()


def test_join_and_leave_hold_and_return_the_stake(client):
    host, guest = player(), player()
    table = services.table_create(user=host, stake=100_00, seats=3)
    client = logged_in(client, guest)
    client.post(reverse("table_join", args=[table.pk]))
    assert user_balance(user=guest) == FUNDS - 100_00
    assert client.get(reverse("balance_json")).json()["amount"] == FUNDS - 100_00
    again = client.post(reverse("table_join", args=[table.pk]), follow=True)
    assert Seat.objects.filter(table=table, user=guest, left_at__isnull=True).count() == 1
    assert user_balance(user=guest) == FUNDS - 100_00
    assert any(m.level_tag == "error" for m in again.context["messages"])
    response = client.post(reverse("table_leave", args=[table.pk]))
    assert response["Location"] == reverse("lobby")
    assert user_balance(user=guest) == FUNDS


def test_form_endpoints_take_posts_only(client):
    user = player()
    table = services.table_create(user=user, stake=100, seats=2)
    client = logged_in(client, user)
    assert client.get(reverse("table_join", args=[table.pk])).status_code == 405
    assert client.get(reverse("table_leave", args=[table.pk])).status_code == 405


def test_a_private_table_needs_its_invitation(client):
    host, guest = player(), player()
    table = services.table_create(user=host, stake=100, seats=2, private=True)
    client = logged_in(client, guest)
    assert client.get(reverse("table_detail", args=[table.pk])).status_code == 404
    assert client.get(f"/table/{table.pk}/?invite=wrong").status_code == 404
    page = client.get(f"/table/{table.pk}/?invite={table.invite_code}")
    assert page.status_code == 200
    assert f'name="invite_code" value="{table.invite_code}"' in page.content.decode()
    client.post(reverse("table_join", args=[table.pk]), {"invite_code": "wrong"})
    assert not Seat.objects.filter(table=table, user=guest).exists()
    client.post(reverse("table_join", args=[table.pk]), {"invite_code": table.invite_code})
    assert Game.objects.filter(table=table, status=Game.Status.PLAYING).exists()


def test_the_table_page_embeds_only_the_viewers_own_cards(client):
    host, guest, watcher = player(), player(), player()
    table = services.table_create(user=host, stake=100, seats=2)
    services.table_join(table_id=table.pk, user=guest)
    game = Game.objects.get(table=table)
    engine = EngineGame.from_dict(game.state)

    response = logged_in(client, guest).get(reverse("table_detail", args=[table.pk]))
    html = response.content.decode()
    state = embedded_state(response)
    assert state["you"] == 1
    assert sorted(state["view"]["hand"]) == sorted(engine.hand(1))
    assert game.seed not in html
    assert state["game"]["seed_hash"] == game.seed_hash
    assert 'id="ui-strings"' in html

    spectator = embedded_state(logged_in(client, watcher).get(f"/table/{table.pk}/"))
    assert spectator["you"] is None and spectator["view"]["hand"] == []


def ui_strings(response) -> dict:
    match = re.search(
        r'<script id="ui-strings" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    return json.loads(match.group(1))


def test_the_table_page_tells_the_charter_and_the_server_moves_in_each_plural_form(client):
    host, guest = player(), player()
    table = services.table_create(user=host, stake=100, seats=2, throw_seconds=7)
    services.table_join(table_id=table.pk, user=guest)
    url = reverse("table_detail", args=[table.pk])
    russian = logged_in(client, guest).get(url, HTTP_ACCEPT_LANGUAGE="ru")
    strings = ui_strings(russian)
    assert strings["away_summary"] == "Пока вас не было: %(moves)s"
    assert strings["server_take"] == {
        "one": "взяли %(n)s раз",
        "few": "взяли %(n)s раза",
        "many": "взяли %(n)s раз",
        "other": "взяли %(n)s раз",
    }
    assert strings["server_pass"]["few"] == "пас %(n)s раза"
    assert strings["log_automatic"] == "(ход сервера)"
    assert "каждый ваш ход теперь ждёт вас только 7 с" in russian.content.decode()

    client.cookies["django_language"] = "en"
    english = client.get(url)
    strings = ui_strings(english)
    assert strings["server_take"]["one"] == "took %(n)s time"
    assert strings["server_take"]["other"] == "took %(n)s times"
    assert strings["server_lead"]["other"] == "led your lowest card %(n)s times"
    assert "each of your moves now waits only 7 s" in english.content.decode()


def test_finished_game_result_replay_profile_and_leaderboard(client, play_out):
    host, guest = player(), player()
    table = services.table_create(user=host, stake=100_00, seats=2)
    services.table_join(table_id=table.pk, user=guest)
    game = play_out(Game.objects.get(table=table))
    client = logged_in(client, host)

    detail = client.get(reverse("game_detail", args=[game.pk]))
    html = detail.content.decode()
    assert game.seed in html and game.seed_hash in html
    replay = json.loads(
        re.search(
            r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S
        ).group(1)
    )
    assert len(replay["steps"]) == game.events.count() + 1
    assert replay["steps"][-1]["finished"] is True
    assert replay["players"] == [host.username, guest.username]

    shares = {row.user_id: row.amount for row in game.distribution.all()}
    for user in (host, guest):
        summary = client.get(reverse("profile", args=[user.username])).context["summary"]
        assert summary["games"] == 1
        assert summary["net"] == shares[user.pk] - 100_00
        assert summary["durak"] == (1 if shares[user.pk] == 0 else 0)
    Rating.objects.filter(user__in=(host, guest)).update(games=3)
    rows = client.get(reverse("leaderboard")).context["rows"]
    assert {row["player"] for row in rows} == {host, guest}
    assert rows[0]["rating"] >= rows[1]["rating"]
    assert {row["player"]: row["net"] for row in rows} == {
        host: shares[host.pk] - 100_00,
        guest: None,
    }
    own = client.get(reverse("profile"))
    assert own.context["player"] == host
    assert f'href="{reverse("game_detail", args=[game.pk])}"' in own.content.decode()

    response = client.post(reverse("game_rematch", args=[game.pk]))
    assert response["Location"] == reverse("table_detail", args=[table.pk])
    assert Seat.objects.filter(table=table, user=host, left_at__isnull=True).exists()


def test_a_private_game_and_its_replay_open_to_its_players_and_staff_only(client, play_out):
    host, guest, stranger = player(), player(), player()
    table = services.table_create(user=host, stake=100, seats=2, private=True)
    services.table_join(table_id=table.pk, user=guest, invite_code=table.invite_code)
    game = play_out(Game.objects.get(table=table))
    page = reverse("game_detail", args=[game.pk])

    assert logged_in(client, stranger).get(page).status_code == 404
    for viewer in (guest, create_staff(nickname="fairplay-staff")):
        response = logged_in(client, viewer).get(page)
        assert response.status_code == 200
        assert 'id="replay-data"' in response.content.decode()


def test_a_game_still_being_played_shows_no_seed_and_no_replay(client):
    host, guest = player(), player()
    table = services.table_create(user=host, stake=100, seats=2)
    services.table_join(table_id=table.pk, user=guest)
    game = Game.objects.get(table=table)
    html = logged_in(client, host).get(reverse("game_detail", args=[game.pk])).content.decode()
    assert game.seed not in html
    assert 'id="replay-data"' not in html


def test_rules_come_in_russian_and_english_with_the_payout_table_in_force(client):
    PayoutScheme.objects.update_or_create(players=3, defaults={"percentages": [70, 30, 0]})
    russian = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    english = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Подкидывание" in russian and "Throwing in" in english
    assert "70 %" in russian and "80 %" not in russian
    assert "(60 + 30) / 2 = 45 %" in english


def test_the_rules_publish_the_disconnect_charter_and_how_long_a_table_that_dropped_waits(
    client, settings
):
    settings.TABLE_DROP_GRACE_SECONDS = 90
    russian = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    english = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Сервер никогда не ходит за игрока раньше, чем вышло его время" in russian
    assert "пока он сам не сходит или не нажмёт «Я вернулся»" in russian
    assert "Пока вас не было: взяли 2 раза, пас 1 раз" in russian
    assert "сервер ждёт 90 секунд" in russian
    assert "The server never moves for a player before his time runs out" in english
    assert "until he moves himself or presses “I'm back”" in english
    assert "the server waits 90 seconds" in english


def test_the_profile_of_an_unknown_player_is_not_found(client):
    assert client.get(reverse("profile", args=["nobody-here"])).status_code == 404
