"""What there is to watch: the live tables of the highest-rated players, and the best game of
yesterday with its replay.

Spectators see a live table through the table page's spectator view (public information only);
a finished game's replay shows every hand, as its result page does for anyone.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import FloatField, IntegerField, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from games.models import Game
from games.selectors.stats import game_replay

WATCH_LIMIT = 12
# The ratings each seat had when the game started (Game.ratings: {"seat": rating}).
_BEST_RATING = RawSQL(
    "(SELECT max(value::int) FROM jsonb_each_text(games_game.ratings))",
    [],
    output_field=IntegerField(),
)
_AVERAGE_RATING = RawSQL(
    "(SELECT avg(value::int) FROM jsonb_each_text(games_game.ratings))",
    [],
    output_field=FloatField(),
)
_BEST_GAME_CACHE_SECONDS = 24 * 3600


def _rated_public_games() -> QuerySet[Game]:
    """Games with stakes at public tables: anyone may watch them and see their results."""
    return Game.objects.filter(
        table__private=False, table__practice=False, ratings__isnull=False
    ).select_related("table")


def _seats(games: list[Game]) -> dict[int, list[dict]]:
    """Each game's players in seat order: nickname and rating at the start. One query."""
    names = (
        get_user_model()
        .objects.only("username")
        .in_bulk({user_id for game in games for user_id in game.players})
    )
    return {
        game.pk: [
            {"nickname": names[user_id].username, "rating": game.ratings.get(str(seat))}
            for seat, user_id in enumerate(game.players)
        ]
        for game in games
    }


def live_tables(*, limit: int = WATCH_LIMIT) -> list[dict]:
    """Games being played at public stake tables, the one with the highest-rated player first
    (then the highest average, then the newest): table, game, players. Two queries."""
    games = list(
        _rated_public_games()
        .filter(status=Game.Status.PLAYING)
        .annotate(best=_BEST_RATING, average=_AVERAGE_RATING)
        .order_by("-best", "-average", "-started_at")[:limit]
    )
    seats = _seats(games)
    return [
        {"table": game.table, "game": game, "best": game.best, "players": seats[game.pk]}
        for game in games
    ]


def best_game_on(day: date) -> Game | None:
    """The best game finished on `day` (the site's time zone): of the finished stake games at
    public tables that ended with places (no stalemate), the one whose players' average rating
    at the start was highest; between equals the longer game, then the one finished first."""
    zone = timezone.get_current_timezone()
    start = datetime.combine(day, time.min, tzinfo=zone)
    end = datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)
    return (
        _rated_public_games()
        .filter(
            status=Game.Status.FINISHED,
            stalemate=False,
            finished_at__gte=start,
            finished_at__lt=end,
        )
        .annotate(average=_AVERAGE_RATING)
        .order_by("-average", "-version", "finished_at")
        .first()
    )


def best_game_of_yesterday(*, today: date | None = None) -> dict | None:
    """Yesterday's best game (best_game_on) with its players and its replay, or None.

    Yesterday is over, so the choice and the replay are kept in the cache for the day: the home
    page reads them with one cache round trip.
    """
    today = today or timezone.localdate()
    key = f"watch:best-game:{today.isoformat()}"
    found = cache.get(key)
    if found is None:
        game = best_game_on(today - timedelta(days=1))
        found = {"game": None}
        if game is not None:
            found = {
                "game": {
                    "id": game.pk,
                    "table_id": game.table_id,
                    "number": game.number,
                    "stake": game.stake,
                    "average": round(game.average),
                },
                "players": _seats([game])[game.pk],
                "replay": game_replay(game=game),
            }
        cache.set(key, found, _BEST_GAME_CACHE_SECONDS)
    return found if found["game"] else None
