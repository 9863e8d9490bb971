"""The pages of practice, quick play and ratings, through Django's test client."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.engine import Game as EngineGame
from games.models import PRACTICE_PLAYER_SEAT, Game, Rating, Table
from games.selectors import lobby
from tests.games.conftest import STAKE, create_player
from tests.games.test_services import play_out, seated_game

pytestmark = pytest.mark.django_db


def logged_in(client, user=None):
    user = user or create_player()
    client.force_login(user)
    return user


def test_the_lobby_offers_quick_play_and_practice_and_counts_players_by_stake(client):
    logged_in(client)
    waiting = create_player()
    client.force_login(waiting)
    client.post(reverse("quick_play"), {"stake": "100", "seats": "3"})
    page = client.get(reverse("lobby")).content.decode()
    assert 'data-testid="quick-play"' in page and 'data-testid="practice"' in page
    assert 'data-testid="stake-counts"' in page
    assert lobby.players_by_stake() == [{"stake": STAKE, "waiting": 1, "playing": 0}]


def test_starting_practice_opens_a_marked_table_with_a_hint(client):
    user = logged_in(client)
    response = client.post(reverse("practice_start"), {"seats": "3", "level": "novice"})
    table = Table.objects.get(created_by=user)
    assert response.status_code == 302 and response["Location"] == f"/table/{table.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert 'data-testid="practice-mark"' in page
    assert f'data-hint-url="/table/{table.pk}/hint/"' in page
    hint = client.get(f"/table/{table.pk}/hint/").json()["action"]
    engine = EngineGame.from_dict(Game.objects.get(table=table).state)
    assert hint is None or hint in engine.legal_actions(PRACTICE_PLAYER_SEAT)


def test_a_bad_practice_form_is_shown_again_and_opens_nothing(client):
    logged_in(client)
    response = client.post(reverse("practice_start"), {"seats": "9", "level": "novice"})
    assert response.status_code == 400
    assert not Table.objects.exists()


def test_quick_play_with_a_short_balance_says_so_and_stays_in_the_lobby(client):
    logged_in(client, create_player(balance=STAKE - 1))
    response = client.post(reverse("quick_play"), {"stake": "100", "seats": ""}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("lobby")
    assert "Not enough money" in response.content.decode() or "Недостаточно" in (
        response.content.decode()
    )
    assert not Table.objects.exists()


def test_profile_and_leaderboard_show_the_rating(client):
    game, users = seated_game(2)
    play_out(game, users)
    rating = Rating.objects.get(user=users[0])
    page = client.get(reverse("profile", args=[users[0].username])).content.decode()
    assert 'data-testid="rating"' in page
    Rating.objects.filter(user__in=users).update(games=5)
    board = client.get(reverse("leaderboard") + "?sort=rating").content.decode()
    assert board.count('data-testid="leaderboard-rating"') == 2
    assert rating.user.username in board


def test_the_leaderboard_sorts_by_rating_and_shows_money_to_the_player_himself_and_staff(client):
    game, users = seated_game(3)
    game = play_out(game, users)
    Rating.objects.filter(user__in=users).update(games=3)
    nets = {row.user_id: row.amount - game.stake for row in game.distribution.all()}
    ratings = Rating.objects.filter(user__in=users)
    shown = [row.user for row in sorted(ratings, key=lambda r: -(r.mu - 3 * r.sigma))]

    def board(viewer=None):
        if viewer is not None:
            client.force_login(viewer)
        response = client.get(reverse("leaderboard"))
        rows = response.context["rows"]
        assert [row["player"] for row in rows] == shown
        return {row["user"]: row["net"] for row in rows}, response.content.decode()

    nets_seen, page = board()
    assert set(nets_seen.values()) == {None} and 'data-testid="leaderboard-net"' not in page
    me = users[1]
    nets_seen, page = board(me)
    assert nets_seen == {user.pk: nets[me.pk] if user == me else None for user in users}
    assert page.count('data-testid="leaderboard-net"') == 3
    staff = create_player()
    staff.is_staff = True
    staff.save()
    nets_seen, _ = board(staff)
    assert nets_seen == nets


def test_a_profile_shows_money_won_or_lost_only_to_the_player_himself_and_staff(client):
    game, users = seated_game(2)
    play_out(game, users)
    profile = reverse("profile", args=[users[0].username])

    def money_shown(viewer=None) -> bool:
        if viewer is not None:
            client.force_login(viewer)
        page = client.get(profile).content.decode()
        assert f"Стол №{game.table_id}, партия 1</a>" in page  # the game itself stays public
        return 'data-testid="net-result"' in page

    assert not money_shown()
    assert not money_shown(users[1])
    assert money_shown(users[0])
    staff = create_player()
    staff.is_staff = True
    staff.save()
    assert money_shown(staff)


def test_bot_nicknames_are_shown_in_the_pages_language(client):
    from games.nicknames import nickname_shown
    from tests.games.test_practice import practice_game, step

    game, user = practice_game(players=3, level="novice")
    client.force_login(user)
    while game.status == Game.Status.PLAYING:
        step(game, user)
        game.refresh_from_db()
    detail = reverse("game_detail", args=[game.pk])
    english = client.get(detail, headers={"accept-language": "en"}).content.decode()
    assert ">Novice 1</a>" in english and ">Novice 2</a>" in english
    assert "Новичок" not in english
    russian = client.get(detail, headers={"accept-language": "ru"}).content.decode()
    assert ">Новичок 1</a>" in russian
    # The table page gives its scripts the names to show in the page's language.
    table = client.get(f"/table/{game.table_id}/", headers={"accept-language": "en"})
    assert '"__bot_words": {"Новичок": "Novice", "Любитель": "Amateur", "Мастер": "Master"}' in (
        table.content.decode().encode().decode("unicode_escape")
    )
    # A player's nickname is never taken for a bot's.
    assert nickname_shown("Новичок1") == "Новичок1"


def test_players_see_one_number_a_game_within_its_table_and_staff_see_both(client):
    from django.contrib.auth import get_user_model

    game, users = seated_game(2)
    game = play_out(game, users)
    client.force_login(users[0])
    detail = reverse("game_detail", args=[game.pk])
    page = client.get(detail).content.decode()
    assert f"Стол №{game.table_id}, партия 1</h1>" in page
    assert f"Игра №{game.pk}" not in page
    profile = client.get(reverse("profile")).content.decode()
    assert f"Стол №{game.table_id}, партия 1</a>" in profile
    staff = get_user_model().objects.create_user(
        username="staffer", email="staffer@example.com", password=None, is_staff=True
    )
    client.force_login(staff)
    assert f"Игра №{game.pk}" in client.get(detail).content.decode()
