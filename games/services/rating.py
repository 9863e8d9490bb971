"""Storing skill ratings (``games.rating``): a game with stakes counts once, in the transaction
that settles its bank; practice games and stalemates do not count."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from durak_site.backends.plain_sql import prepared_cursor
from games.models import BankDistribution, Game, Rating, RatingChange
from games.rating import MODEL, display_rating, rated_outcome


def ratings_at_start(user_ids: list[int]) -> dict[str, int]:
    """Each seat's shown rating, {"seat": rating}; a newcomer shows the model's start."""
    stored = {
        user_id: (mu, sigma)
        for user_id, mu, sigma in Rating.objects.filter(user_id__in=user_ids).values_list(
            "user_id", "mu", "sigma"
        )
    }
    return {
        str(seat): display_rating(*stored.get(user_id, (MODEL.mu, MODEL.sigma)))
        for seat, user_id in enumerate(user_ids)
    }


def rating_record_game(*, game: Game, places: list[list[int]]) -> dict[int, tuple[int, int]]:
    """Update the ratings of the game's players, in the transaction settling its bank.

    Two statements written once, where the ORM took four and compiled each anew: every game's
    end takes them. Returns each player's shown rating before and after the game, by user id.
    """
    users = game.players
    ratings, changes = Rating._meta.db_table, RatingChange._meta.db_table
    with prepared_cursor() as cursor:
        # A newcomer's rating is made at the model's start; every player's row is locked, in
        # one order, by player, so two games finishing together never deadlock.
        cursor.execute(
            f"INSERT INTO {ratings} (user_id, mu, sigma, games)"
            " SELECT id, %s, %s, 0 FROM unnest(%s::bigint[]) AS id ORDER BY id"
            f" ON CONFLICT (user_id) DO UPDATE SET games = {ratings}.games"
            " RETURNING user_id, mu, sigma",
            [MODEL.mu, MODEL.sigma, sorted(users)],
        )
        stored = {user_id: (mu, sigma) for user_id, mu, sigma in cursor.fetchall()}
        after = rated_outcome([stored[user_id] for user_id in users], places)
        rated = [users, [mu for mu, _ in after], [sigma for _, sigma in after]]
        cursor.execute(
            f"WITH changes AS (INSERT INTO {changes} (game_id, user_id, mu, sigma, created_at)"
            " SELECT %s, v.*, %s FROM unnest(%s::bigint[], %s::float8[], %s::float8[]) AS v)"
            f" UPDATE {ratings} r SET mu = v.mu, sigma = v.sigma, games = r.games + 1"
            " FROM unnest(%s::bigint[], %s::float8[], %s::float8[]) AS v (user_id, mu, sigma)"
            " WHERE r.user_id = v.user_id",
            [game.pk, timezone.now(), *rated, *rated],
        )
    return {
        user_id: (display_rating(*stored[user_id]), display_rating(*rating))
        for user_id, rating in zip(users, after, strict=True)
    }


@dataclass(frozen=True)
class RatingDifference:
    """A player whose stored rating is not what his games give."""

    user_id: int
    stored: tuple[float, float, int] | None
    recomputed: tuple[float, float, int]


def rating_rebuild(*, fix: bool = False) -> tuple[int, list[RatingDifference]]:
    """Recompute every rating from the rated games, in the order they were rated.

    Returns the number of games replayed and the players whose stored rating differs; with
    `fix`, the recomputed ratings are stored.
    """
    games = (
        Game.objects.filter(status=Game.Status.FINISHED, table__practice=False, stalemate=False)
        .annotate(rated_at=Min("rating_changes__id"))
        .order_by("rated_at", "finished_at", "pk")
        .only("pk", "players")
    )
    places_by_game: dict[int, dict[int, int]] = {}
    for game_id, seat, place in BankDistribution.objects.filter(
        game__in=games.values("pk")
    ).values_list("game_id", "seat", "place"):
        places_by_game.setdefault(game_id, {})[seat] = place
    ratings: dict[int, tuple[float, float, int]] = {}
    replayed = 0
    for game in games:
        place_of = places_by_game.get(game.pk, {})
        groups = [
            [seat for seat, place in place_of.items() if place == shared]
            for shared in sorted(set(place_of.values()))
        ]
        before = [ratings.get(user, (MODEL.mu, MODEL.sigma, 0)) for user in game.players]
        after = rated_outcome([(mu, sigma) for mu, sigma, _ in before], groups)
        for user, (mu, sigma), (*_, count) in zip(game.players, after, before, strict=True):
            ratings[user] = (mu, sigma, count + 1)
        replayed += 1
    stored = {
        rating.user_id: (rating.mu, rating.sigma, rating.games) for rating in Rating.objects.all()
    }
    differences = [
        RatingDifference(user_id, stored.get(user_id), recomputed)
        for user_id, recomputed in sorted(ratings.items())
        if not _same(stored.get(user_id), recomputed)
    ] + [
        RatingDifference(user_id, values, (MODEL.mu, MODEL.sigma, 0))
        for user_id, values in sorted(stored.items())
        if user_id not in ratings
    ]
    if fix and differences:
        with transaction.atomic(durable=True):
            for difference in differences:
                mu, sigma, count = difference.recomputed
                Rating.objects.update_or_create(
                    user_id=difference.user_id,
                    defaults={"mu": mu, "sigma": sigma, "games": count},
                )
    return replayed, differences


def _same(stored: tuple[float, float, int] | None, recomputed: tuple[float, float, int]) -> bool:
    return (
        stored is not None
        and stored[2] == recomputed[2]
        and abs(stored[0] - recomputed[0]) < 1e-9
        and abs(stored[1] - recomputed[1]) < 1e-9
    )
