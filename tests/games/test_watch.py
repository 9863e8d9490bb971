"""Watch: the live tables of the highest-rated players and the best game of yesterday."""

from __future__ import annotations

import json
import re
from datetime import datetime, time, timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game, Table
from games.selectors import watch
from tests.games.conftest import create_player
from tests.games.test_services import play_out, seated_game

pytestmark = pytest.mark.django_db


def rated(game: Game, ratings: list[int], **changes) -> Game:
    """The game as if its seats had had these ratings when it started."""
    by_seat = {str(seat): rating for seat, rating in enumerate(ratings)}
    Game.objects.filter(pk=game.pk).update(ratings=by_seat, **changes)
    game.refresh_from_db()
    return game


def private_game() -> Game:
    game, _ = seated_game(2)
    Table.objects.filter(pk=game.table_id).update(private=True, invite_code="secret")
    return game


def test_live_tables_list_public_stake_games_the_best_player_first_in_two_queries(
    django_assert_num_queries,
):
    middling, _ = seated_game(2)
    rated(middling, [1100, 1100])
    strongest, users = seated_game(3)
    rated(strongest, [900, 1400, 1000])
    weaker_pair, _ = seated_game(2)
    rated(weaker_pair, [1300, 800])
    equal_best, _ = seated_game(2)
    rated(equal_best, [1300, 1250])  # the same best player's rating, a higher average
    hidden = private_game()
    rated(hidden, [2000, 2000])
    over, over_users = seated_game(2)
    rated(play_out(over, over_users), [1900, 1900])
    practice = services.practice_start(user=create_player(), players=2, level="novice")
    assert Game.objects.filter(table=practice, status=Game.Status.PLAYING).exists()

    with django_assert_num_queries(2):
        rows = watch.live_tables()

    assert [row["game"].pk for row in rows] == [
        strongest.pk,
        equal_best.pk,
        weaker_pair.pk,
        middling.pk,
    ]
    assert rows[0]["players"] == [
        {"nickname": user.username, "rating": rating}
        for user, rating in zip(users, [900, 1400, 1000], strict=True)
    ]
    assert rows[0]["best"] == 1400
    assert len(watch.live_tables(limit=2)) == 2


def test_the_watch_page_links_each_live_table_to_its_spectator_view(client):
    game, users = seated_game(2)
    rated(game, [1200, 1000])
    spectator = create_player()
    client.force_login(spectator)

    page = client.get("/watch/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'href="/table/{game.table_id}/"' in html
    assert users[0].username in html and "1200" in html

    table_page = client.get(f"/table/{game.table_id}/")
    state = table_page.context["state"]
    assert state["you"] is None
    assert not state["view"].get("hand")
    assert state["view"]["hand_sizes"] == [6, 6]


def finished_on(day, hour: int) -> datetime:
    return datetime.combine(day, time(hour), tzinfo=timezone.get_current_timezone())


def finish(game: Game, ratings: list[int], when: datetime, **changes) -> Game:
    return rated(game, ratings, status=Game.Status.FINISHED, finished_at=when, **changes)


def test_the_best_game_of_a_day_has_the_highest_average_rating_then_the_most_moves():
    today = timezone.localdate()
    yesterday = today - timedelta(days=1)
    games = {name: seated_game(2)[0] for name in ("best", "longer", "shorter", "low")}
    finish(games["low"], [1000, 1100], finished_on(yesterday, 1), version=90)
    finish(games["shorter"], [1300, 1100], finished_on(yesterday, 2), version=30)
    finish(games["longer"], [1200, 1200], finished_on(yesterday, 3), version=60)
    # Higher averages that do not count: a stalemate, today, the day before, a private table.
    finish(seated_game(2)[0], [2000, 2000], finished_on(yesterday, 4), stalemate=True)
    finish(seated_game(2)[0], [2000, 2000], finished_on(today, 0))
    finish(seated_game(2)[0], [2000, 2000], finished_on(yesterday, 0) - timedelta(seconds=1))
    finish(private_game(), [2000, 2000], finished_on(yesterday, 5))

    assert watch.best_game_on(yesterday).pk == games["longer"].pk
    finish(games["best"], [1250, 1200], finished_on(yesterday, 23), version=10)
    assert watch.best_game_on(yesterday).pk == games["best"].pk
    assert watch.best_game_on(yesterday - timedelta(days=5)) is None


def test_the_home_page_replays_yesterdays_best_game_read_once_a_day(
    client, django_assert_num_queries
):
    game, users = seated_game(2)
    game = play_out(game, users)
    yesterday = timezone.localdate() - timedelta(days=1)
    finish(game, [1150, 1050], finished_on(yesterday, 20))

    page = client.get("/")
    html = page.content.decode()
    assert 'data-testid="best-game"' in html and f'href="/game/{game.pk}/"' in html
    data = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    replay = json.loads(data.group(1))
    assert len(replay["steps"]) == game.version + 1
    assert replay["players"] == [user.username for user in users]

    with django_assert_num_queries(0):
        assert watch.best_game_of_yesterday()["game"]["id"] == game.pk


def test_no_game_yesterday_leaves_the_home_page_without_a_replay(client):
    game, users = seated_game(2)
    rated(play_out(game, users), [1500, 1500])  # finished today
    assert 'data-testid="best-game"' not in client.get("/").content.decode()
    assert watch.best_game_of_yesterday() is None
