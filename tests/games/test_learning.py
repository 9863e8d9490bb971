"""Post-game analysis and puzzles through the services and pages (real PostgreSQL)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.effects import AnalysisRun
from games.engine import Game as EngineGame
from games.engine.endgame import Solver, endgame_puzzle
from games.models import (
    Game,
    GameAnalysis,
    Puzzle,
    PuzzleAttempt,
    PuzzleRating,
    PuzzleScan,
    Table,
)
from games.rating import MODEL, display_rating
from games.selectors.replay import replay_game
from games.services import GameError
from tests.games.conftest import create_player
from tests.games.test_services import play_out, seated_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_budget(settings):
    settings.GAME_ANALYSIS_DEALS = 3
    settings.GAME_ANALYSIS_SECONDS = 30.0


def test_the_analysis_waits_for_the_end_and_is_only_for_the_games_players(client):
    game, users = seated_game(2)
    with pytest.raises(GameError) as refused:
        services.analysis_request(game=game, user=users[0])
    assert refused.value.code == "analysis_game_not_over"
    game = play_out(game, users)
    stranger = create_player()
    with pytest.raises(GameError) as refused:
        services.analysis_request(game=game, user=stranger)
    assert refused.value.code == "not_a_player"
    client.force_login(stranger)
    assert client.get(reverse("game_analysis", args=[game.pk])).status_code == 404
    assert client.get(reverse("game_analysis_progress", args=[game.pk])).status_code == 404
    assert not GameAnalysis.objects.exists()


def test_the_first_request_queues_the_analysis_once_and_its_run_fills_it_in(
    client, small_budget, django_capture_on_commit_callbacks
):
    game, users = seated_game(2)
    game = play_out(game, users)
    client.force_login(users[1])
    page = reverse("game_analysis", args=[game.pk])
    with django_capture_on_commit_callbacks() as callbacks:
        first = client.get(page)
        again = client.get(page)
    analysis = GameAnalysis.objects.get()
    assert [callback for callback in callbacks if isinstance(callback, AnalysisRun)] == [
        AnalysisRun(analysis.pk)
    ]
    assert 'data-testid="analysis-wait"' in first.content.decode()
    assert 'data-testid="analysis-wait"' in again.content.decode()
    progress = reverse("game_analysis_progress", args=[game.pk])
    assert client.get(progress).json() == {"status": "queued", "done": 0, "total": 0}

    # A worker that died while running it left it running: the task's return runs it anew.
    GameAnalysis.objects.filter(pk=analysis.pk).update(status=GameAnalysis.Status.RUNNING)
    assert services.analysis_run(analysis_id=analysis.pk)
    assert not services.analysis_run(analysis_id=analysis.pk)  # a done one is kept as it is
    analysis.refresh_from_db()
    assert analysis.status == GameAnalysis.Status.DONE
    assert analysis.done == analysis.total == len(analysis.decisions) > 0
    seat_moves = game.events.filter(seat=1, automatic=False).values_list("version", flat=True)
    assert {decision["version"] + 1 for decision in analysis.decisions} <= set(seat_moves)
    assert len(analysis.costliest) <= 3
    for move in analysis.costliest:
        assert move["board"]["seat"] == 1
        assert move["durak_played"] > move["durak_best"]
        # The board is what seat 1 saw: his own cards, and only counts of the others'.
        seen = replay_game(game)[move["version"]]
        assert move["board"]["hand"] == seen.hand(1)
        assert move["board"]["hand_sizes"] == [len(seen.hand(seat)) for seat in range(2)]
    assert client.get(progress).json()["status"] == "done"
    filled = client.get(page).content.decode()
    assert 'data-testid="analysis-chart"' in filled
    assert filled.count('data-testid="costly-move"') == len(analysis.costliest)

    # A failed analysis is queued again by the next visit.
    GameAnalysis.objects.filter(pk=analysis.pk).update(status=GameAnalysis.Status.FAILED)
    with django_capture_on_commit_callbacks() as callbacks:
        retried = client.get(page).content.decode()
    assert 'data-testid="analysis-wait"' in retried
    assert AnalysisRun(analysis.pk) in callbacks
    assert client.get(progress).json()["status"] == "queued"


def _puzzle_game() -> tuple[Game, list]:
    """A finished game whose endgame gave a puzzle (few games need searching for one)."""
    for _attempt in range(12):
        game, users = seated_game(2)
        game = play_out(game, users)
        if services.puzzles_find(game=game):
            return game, users
    raise AssertionError("no endgame of twelve games made a puzzle")


def test_puzzles_are_the_endgame_positions_with_one_escaping_move():
    game, _users = _puzzle_game()
    solver = Solver()
    expected = []
    for version, position in enumerate(replay_game(game)):
        puzzle = endgame_puzzle(position, solver)
        if puzzle is not None:
            expected.append((-puzzle.moves, version, puzzle.seat, puzzle.answer))
    # The game's puzzles with the most moves to choose from are kept, at most two.
    kept = [found[1:] for found in sorted(expected, key=lambda found: found[:2])[:2]]
    stored = list(
        Puzzle.objects.filter(game=game).order_by("id").values_list("version", "seat", "answer")
    )
    assert stored == kept
    assert PuzzleScan.objects.get(game=game).found == len(stored)
    assert services.puzzles_find(game=game) == 0  # a game is searched once
    for puzzle in Puzzle.objects.filter(game=game):
        position = EngineGame.from_dict(puzzle.state)
        assert puzzle.state["seed"] is None
        assert puzzle.answer in position.legal_actions(puzzle.seat)


def test_a_try_moves_the_puzzle_rating_once_and_bad_moves_change_nothing(client):
    _puzzle_game()
    puzzle = Puzzle.objects.first()
    solver = create_player()
    client.force_login(solver)
    assert client.get(reverse("puzzles")).url == reverse("puzzle_detail", args=[puzzle.pk])
    page = reverse("puzzle_detail", args=[puzzle.pk])
    moves = services.puzzle_legal_moves(puzzle)
    assert client.get(page).content.decode().count('data-testid="puzzle-move"') == len(moves)

    client.post(page, {"move": str(len(moves))})
    client.post(page, {"move": "first"})
    assert not PuzzleAttempt.objects.exists() and not PuzzleRating.objects.exists()

    client.post(page, {"move": str(moves.index(puzzle.answer))})
    attempt = PuzzleAttempt.objects.get()
    assert attempt.solved and attempt.action == puzzle.answer
    assert attempt.rating_before == display_rating(MODEL.mu, MODEL.sigma)
    assert attempt.rating_after > attempt.rating_before
    rating = PuzzleRating.objects.get(user=solver)
    assert display_rating(rating.mu, rating.sigma) == attempt.rating_after
    puzzle.refresh_from_db()
    assert (puzzle.attempts, puzzle.solved) == (1, 1) and puzzle.mu < MODEL.mu
    shown = client.get(page).content.decode()
    assert 'data-testid="puzzle-result"' in shown and str(attempt.rating_after) in shown

    wrong = next(index for index, move in enumerate(moves) if move != puzzle.answer)
    client.post(page, {"move": str(wrong)})  # a second try is not rated
    assert PuzzleAttempt.objects.count() == 1
    rating.refresh_from_db()
    assert display_rating(rating.mu, rating.sigma) == attempt.rating_after

    loser = create_player()
    before = puzzle.mu
    missed = services.puzzle_try(user=loser, puzzle_id=puzzle.pk, move=wrong)
    assert not missed.solved and missed.rating_after < missed.rating_before
    puzzle.refresh_from_db()
    assert puzzle.mu > before and (puzzle.attempts, puzzle.solved) == (2, 1)


def test_the_daily_puzzle_is_on_the_home_page(client):
    assert 'data-testid="daily-puzzle"' not in client.get("/").content.decode()
    client.force_login(create_player())
    assert 'data-testid="no-puzzle"' in client.get(reverse("puzzles")).content.decode()
    _puzzle_game()
    home = client.get("/").content.decode()
    assert 'data-testid="daily-puzzle"' in home
    daily = services.puzzle_daily(day=timezone.localdate())
    assert reverse("puzzle_detail", args=[daily.pk]) in home


def test_the_periodic_search_takes_each_public_finished_game_once():
    public = play_out(*seated_game(2))
    private = play_out(*seated_game(2))
    Table.objects.filter(pk=private.table_id).update(private=True, invite_code="secret")
    playing, _users = seated_game(2)
    found = services.puzzles_find_new()
    assert list(PuzzleScan.objects.values_list("game_id", flat=True)) == [public.pk]
    assert found == Puzzle.objects.filter(game=public).count()
    assert services.puzzles_find_new() == 0
    assert PuzzleScan.objects.count() == 1
    assert not Puzzle.objects.filter(game__in=[private, playing]).exists()
