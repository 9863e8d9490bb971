"""Skill ratings: updated once per game with stakes, as the openskill library computes them."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from openskill.models import PlackettLuce

from games import services
from games.models import BankDistribution, Game, Rating, RatingChange
from games.rating import display_rating
from games.services import play
from tests.games.test_services import play_out, seated_game

pytestmark = pytest.mark.django_db

# Deals of two players that the engine's bots play to a known end, found by playing the seeds in
# turn: a winner and a durak, and both players out together.
DECISIVE_SEED = f"{1:064x}"
DRAWN_SEED = f"{29:064x}"


def places_of(game: Game) -> list[list[int]]:
    by_place: dict[int, list[int]] = {}
    for share in BankDistribution.objects.filter(game=game):
        by_place.setdefault(share.place, []).append(share.seat)
    return [sorted(by_place[place]) for place in sorted(by_place)]


def test_a_series_of_games_rates_players_as_the_library_does():
    series = []
    games = []
    first = seated_game(3)
    users = first[1]
    series.append(first)
    for size in (2, 4, 3):
        game, more = seated_game(size)
        series.append((game, more))
    # Some of the same players meet again at a new table.
    for players in ([users[0], users[1]], [users[2], users[0], users[1]]):
        table = services.table_create(user=players[0], stake=10_000, seats=len(players))
        for user in players[1:]:
            services.table_join(table_id=table.pk, user=user)
        series.append((Game.objects.get(table=table), players))

    model = PlackettLuce()
    expected: dict[int, object] = {}
    for game, players in series:
        game = play_out(game, players)
        games.append(game)
        ranks = {seat: index for index, group in enumerate(places_of(game)) for seat in group}
        teams = [[expected.get(user.pk) or model.rating()] for user in players]
        rated = model.rate(teams, ranks=[ranks[seat] for seat in range(len(players))])
        for user, team in zip(players, rated, strict=True):
            expected[user.pk] = team[0]

    stored = {rating.user_id: rating for rating in Rating.objects.all()}
    assert stored.keys() == expected.keys()
    for user_id, rating in expected.items():
        assert stored[user_id].mu == pytest.approx(rating.mu, abs=1e-9)
        assert stored[user_id].sigma == pytest.approx(rating.sigma, abs=1e-9)
    assert stored[users[0].pk].games == 3
    for game in games:
        assert RatingChange.objects.filter(game=game).count() == len(game.players)


def test_a_game_is_rated_exactly_once():
    game, users = seated_game(2)
    game = play_out(game, users)
    assert RatingChange.objects.filter(game=game).count() == 2
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingChange.objects.create(game=game, user=users[0], mu=1.0, sigma=1.0)


def test_a_winner_climbs_and_the_durak_falls(monkeypatch):
    monkeypatch.setattr(play, "new_seed", lambda: DECISIVE_SEED)
    game, users = seated_game(2)
    game = play_out(game, users)
    assert places_of(game) == [[0], [1]]
    winner, loser = users
    assert Rating.objects.get(user=winner).mu > 25 > Rating.objects.get(user=loser).mu


def test_a_draw_leaves_both_players_level_and_their_ratings_surer(monkeypatch):
    monkeypatch.setattr(play, "new_seed", lambda: DRAWN_SEED)
    game, users = seated_game(2)
    game = play_out(game, users)
    assert places_of(game) == [[0, 1]]
    newcomer = PlackettLuce().rating()
    for user in users:
        rating = Rating.objects.get(user=user)
        assert rating.mu == pytest.approx(newcomer.mu, abs=1e-9)
        assert rating.sigma < newcomer.sigma


def test_rating_rebuild_finds_a_tampered_rating_and_fixes_it(capsys):
    game, users = seated_game(3)
    play_out(game, users)
    call_command("rating_rebuild")
    assert "ratings OK: 1 games replayed" in capsys.readouterr().out
    right = Rating.objects.get(user=users[1])
    Rating.objects.filter(user=users[1]).update(mu=40.0)
    with pytest.raises(CommandError):
        call_command("rating_rebuild")
    assert f"DIFFERENCE: player {users[1].pk}" in capsys.readouterr().out
    call_command("rating_rebuild", "--fix")
    assert Rating.objects.get(user=users[1]).mu == pytest.approx(right.mu, abs=1e-9)
    call_command("rating_rebuild")


def test_the_shown_rating_starts_at_1000_for_a_newcomer():
    model = PlackettLuce()
    assert display_rating(model.mu, model.sigma) == 1000
