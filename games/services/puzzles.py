"""Puzzles («Задачи») from real endgames: finding them in finished games, a player's tries,
his puzzle rating (``games.rating.rated_puzzle``) and the daily puzzle.

A finished game is searched once (``PuzzleScan``): every position of its endgame goes to the
exact solver (``games.engine.endgame``), and those where exactly one move escapes being the
durak become puzzles. A player's first try at a puzzle rates him and the puzzle; later ones
change nothing.
"""

from __future__ import annotations

from datetime import date

from django.db import IntegrityError, transaction
from django.db.models import F, Func

from games.engine import Game as EngineGame
from games.engine.endgame import Solver, endgame_puzzle
from games.errors import GameError
from games.models import Game, Puzzle, PuzzleAttempt, PuzzleRating, PuzzleScan
from games.rating import MODEL, display_rating, rated_puzzle
from games.selectors.replay import replay_game

# A game gives at most this many puzzles; and one search takes at most this many games.
PUZZLES_PER_GAME = 2
GAMES_PER_SEARCH = 20


def puzzles_find(*, game: Game) -> int:
    """Search a finished game's endgame for puzzles and keep them; the number found. A game
    already searched is not searched again."""
    if game.status != Game.Status.FINISHED or PuzzleScan.objects.filter(game=game).exists():
        return 0
    found = []
    try:
        snapshots = replay_game(game)
    except ValueError:
        snapshots = []
    solver = Solver()
    for version, snapshot in enumerate(snapshots):
        puzzle = endgame_puzzle(snapshot, solver)
        if puzzle is not None:
            found.append((version, puzzle))
    # The ones with the most moves to choose from are the least obvious.
    found.sort(key=lambda item: (-item[1].moves, item[0]))
    del found[PUZZLES_PER_GAME:]
    try:
        with transaction.atomic():
            PuzzleScan.objects.create(game=game, found=len(found))
            Puzzle.objects.bulk_create(
                Puzzle(
                    game=game,
                    version=version,
                    state=puzzle.state,
                    seat=puzzle.seat,
                    answer=puzzle.answer,
                    mu=MODEL.mu,
                    sigma=MODEL.sigma,
                )
                for version, puzzle in found
            )
    except IntegrityError:  # another search stored this game's first
        return 0
    return len(found)


def puzzles_find_new(*, limit: int = GAMES_PER_SEARCH) -> int:
    """Search the latest finished games not searched yet; the number of puzzles found. Games
    at private tables stay private."""
    games = Game.objects.filter(
        status=Game.Status.FINISHED,
        stalemate=False,
        table__private=False,
        puzzle_scan__isnull=True,
    ).order_by("-finished_at")[:limit]
    return sum(puzzles_find(game=game) for game in games)


def puzzle_legal_moves(puzzle: Puzzle) -> list[dict]:
    """The moves the side to move may choose from, in the engine's order."""
    return EngineGame.from_dict(puzzle.state).legal_actions(puzzle.seat)


def puzzle_rating_of(user) -> tuple[float, float]:
    rating = PuzzleRating.objects.filter(user=user).values_list("mu", "sigma").first()
    return rating or (MODEL.mu, MODEL.sigma)


def puzzle_next(*, user) -> Puzzle | None:
    """The puzzle nearest the player's puzzle rating that he has not tried yet."""
    mu, _sigma = puzzle_rating_of(user)
    return (
        Puzzle.objects.exclude(tries__user=user)
        .annotate(distance=Func(F("mu") - mu, function="ABS"))
        .order_by("distance", "id")
        .first()
    )


def puzzle_daily(*, day: date) -> Puzzle | None:
    """The day's puzzle: each day the next of all puzzles, in the order they were found."""
    count = Puzzle.objects.count()
    if not count:
        return None
    return Puzzle.objects.order_by("id")[day.toordinal() % count]


def puzzle_try(*, user, puzzle_id: int, move: int) -> PuzzleAttempt:
    """Play the `move`-th legal move of the puzzle. The first try rates the player and the
    puzzle; a later one returns the first try unchanged. GameError for a bad move or puzzle."""
    try:
        puzzle = Puzzle.objects.get(pk=puzzle_id)
    except Puzzle.DoesNotExist:
        raise GameError("puzzle_not_found") from None
    legal = puzzle_legal_moves(puzzle)
    if not 0 <= move < len(legal):
        raise GameError("puzzle_bad_move")
    action = legal[move]
    with transaction.atomic():
        # Locks in one order, the player's rating and then the puzzle, so tries never deadlock.
        rating, _created = PuzzleRating.objects.select_for_update().get_or_create(
            user=user, defaults={"mu": MODEL.mu, "sigma": MODEL.sigma}
        )
        earlier = PuzzleAttempt.objects.filter(puzzle_id=puzzle_id, user=user).first()
        if earlier is not None:
            return earlier
        puzzle = Puzzle.objects.select_for_update().get(pk=puzzle_id)
        solved = action == puzzle.answer
        before = display_rating(rating.mu, rating.sigma)
        (rating.mu, rating.sigma), (puzzle.mu, puzzle.sigma) = rated_puzzle(
            (rating.mu, rating.sigma), (puzzle.mu, puzzle.sigma), solved=solved
        )
        rating.attempts += 1
        rating.save(update_fields=["mu", "sigma", "attempts"])
        puzzle.attempts += 1
        puzzle.solved += solved
        puzzle.save(update_fields=["mu", "sigma", "attempts", "solved"])
        return PuzzleAttempt.objects.create(
            puzzle=puzzle,
            user=user,
            action=action,
            solved=solved,
            rating_before=before,
            rating_after=display_rating(rating.mu, rating.sigma),
        )
