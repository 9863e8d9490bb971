"""Read-only figures for the pages: payout table, player statistics, history, leaderboard."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Func, IntegerField, Q, Sum
from django.db.models.functions import Coalesce

from games.engine import DEFAULT_PERCENTAGES
from games.models import (
    MAX_PLAYERS,
    BankDistribution,
    Game,
    PayoutScheme,
    Rating,
    RatingChange,
    Seat,
    Table,
)
from games.rating import display_rating
from games.selectors.replay import replay_game
from games.selectors.tables import games_visible_to, mark_leads

HISTORY_LIMIT = 50
LEADERBOARD_LIMIT = 100
# The rating leaderboard lists players with at least this many rated games.
LEADERBOARD_MIN_GAMES = 3


def payout_table() -> list[dict]:
    """Rows of the bank split in force, one per number of players (staff may edit them)."""
    rows = dict(DEFAULT_PERCENTAGES)
    rows.update({scheme.players: scheme.percentages for scheme in PayoutScheme.objects.all()})
    return [
        {
            "players": players,
            "percentages": list(percentages),
            "padding": range(MAX_PLAYERS - len(percentages)),
        }
        for players, percentages in sorted(rows.items())
    ]


def user_active_tables(*, user) -> list[Table]:
    """Tables where the user sits now (waiting or playing), newest first."""
    return list(
        # The user's seat is looked up in a subquery: filtering on the same join as the count
        # would count his seat alone.
        Table.objects.filter(
            pk__in=Seat.objects.filter(user=user, left_at__isnull=True).values("table_id"),
            status__in=[Table.Status.OPEN, Table.Status.PLAYING],
        )
        .annotate(taken=Count("seat_set", filter=Q(seat_set__left_at__isnull=True)))
        .order_by("-created_at")
    )


class _PlayerCount(Func):
    """Number of players of a game: the length of its players JSON array."""

    function = "jsonb_array_length"
    output_field = IntegerField()


def _shares(*, practice: bool = False):
    """Bank shares of finished games (with stakes, or practice ones), each knowing whether its
    seat was the lone durak."""
    # Shared places carry the number of the first place of the group, so only a lone loser
    # sits on the last place.
    return BankDistribution.objects.filter(
        game__status=Game.Status.FINISHED, game__table__practice=practice
    ).annotate(
        players=_PlayerCount(F("game__players")),
    )


def sees_money(*, owner_id: int, viewer) -> bool:
    """Whether ``viewer`` may see what a player won or lost: only the player himself and staff."""
    return viewer.is_authenticated and (viewer.is_staff or viewer.pk == owner_id)


def _shares_seen(*, user, viewer, practice: bool = False):
    """The user's bank shares in the games `viewer` may see (games_visible_to)."""
    return (
        _shares(practice=practice)
        .filter(user=user)
        .filter(games_visible_to(user=viewer, table_field="game__table"))
    )


def player_summary(*, user, viewer) -> dict:
    """Games played, wins, places, times durak and the net result (payouts minus stakes), over
    the games `viewer` may see."""
    totals = _shares_seen(user=user, viewer=viewer).aggregate(
        games=Count("id"),
        wins=Count("id", filter=Q(place=1)),
        durak=Count("id", filter=Q(place=F("players"))),
        paid=Coalesce(Sum("amount"), 0),
        staked=Coalesce(Sum("game__stake"), 0),
    )
    places = (
        _shares_seen(user=user, viewer=viewer)
        .values("place")
        .annotate(count=Count("id"))
        .order_by("place")
    )
    return {**totals, "net": totals["paid"] - totals["staked"], "places": list(places)}


def player_history(*, user, viewer, practice: bool = False) -> list[dict]:
    """The user's finished games (with stakes, or practice ones) that `viewer` may see, newest
    first: place, durak or not, payout and net."""
    rows = (
        _shares_seen(user=user, viewer=viewer, practice=practice)
        .select_related("game__table")
        .order_by("-game__finished_at")[:HISTORY_LIMIT]
    )
    return [
        {
            "game": row.game,
            "place": row.place,
            "players": row.players,
            "durak": row.place == row.players,
            "amount": row.amount,
            "net": row.amount - row.game.stake,
        }
        for row in rows
    ]


def leaderboard(*, viewer) -> list[dict]:
    """Players with at least ``LEADERBOARD_MIN_GAMES`` rated games, by rating, best first.

    Each row's net result (payouts minus stakes over finished public games) is given only to
    staff and to the player himself; for everyone else's row it is None.
    """
    rows = (
        _shares()
        .filter(game__table__private=False, user__rating__games__gte=LEADERBOARD_MIN_GAMES)
        .values("user")
        .annotate(
            games=Count("id"),
            wins=Count("id", filter=Q(place=1)),
            durak=Count("id", filter=Q(place=F("players"))),
            net=Sum("amount") - Sum("game__stake"),
            mu=F("user__rating__mu"),
            sigma=F("user__rating__sigma"),
        )
        .order_by((F("user__rating__mu") - 3 * F("user__rating__sigma")).desc(), "user")
    )[:LEADERBOARD_LIMIT]
    names = get_user_model().objects.in_bulk([row["user"] for row in rows])
    return [
        {
            **row,
            "net": row["net"] if sees_money(owner_id=row["user"], viewer=viewer) else None,
            "player": names[row["user"]],
            "rating": _shown(row["mu"], row["sigma"]),
        }
        for row in rows
    ]


def _shown(mu: float | None, sigma: float | None) -> int | None:
    return None if mu is None else display_rating(mu, sigma)


def player_rating_now(*, user) -> int | None:
    """The user's shown rating, or None before his first rated game."""
    row = Rating.objects.filter(user=user).values_list("mu", "sigma").first()
    return None if row is None else display_rating(*row)


def player_rating(*, user) -> dict:
    """The user's rating now and after each rated game, oldest first (for a chart)."""
    rating = Rating.objects.filter(user=user).first()
    changes = RatingChange.objects.filter(user=user).order_by("id").values_list("mu", "sigma")
    return {
        "rating": None if rating is None else display_rating(rating.mu, rating.sigma),
        "games": 0 if rating is None else rating.games,
        "history": [display_rating(mu, sigma) for mu, sigma in changes],
    }


def game_replay(*, game: Game) -> dict:
    """Every position of a finished game with all hands open, and the move that led to it."""
    snapshots = replay_game(game)
    events = mark_leads(
        list(game.events.order_by("version").values("seat", "action", "automatic", "bout"))
    )
    steps = []
    for index, snapshot in enumerate(snapshots):
        public = snapshot.view(None)
        steps.append(
            {
                "event": events[index - 1] if index else None,
                "hands": [snapshot.hand(seat) for seat in range(snapshot.players)],
                **{
                    key: public[key]
                    for key in (
                        "hand_sizes",
                        "talon_size",
                        "trump_card",
                        "trump_suit",
                        "table",
                        "attacker",
                        "defender",
                        "taking",
                        "passed",
                        "out",
                        "waiting_for",
                        "finished",
                    )
                },
            }
        )
    names = get_user_model().objects.in_bulk(game.players)
    return {
        "players": [names[user_id].username for user_id in game.players],
        "steps": steps,
    }
