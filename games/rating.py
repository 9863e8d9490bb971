"""Skill ratings: OpenSkill's Plackett-Luce model over a game's finishing order.

Players who went out after the same bout share a place. The commands that store ratings are in
``games.services.rating``.
"""

from __future__ import annotations

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
# Shown as 1000 + 40 × (mu − 3 sigma): a newcomer shows 1000, and the figure grows as the model
# becomes sure that a player is strong.
DISPLAY_BASE = 1000
DISPLAY_SCALE = 40


def display_rating(mu: float, sigma: float) -> int:
    """The rating a player sees: a conservative estimate of his skill."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma))


def rated_outcome(
    ratings: list[tuple[float, float]], places: list[list[int]]
) -> list[tuple[float, float]]:
    """Each seat's (mu, sigma) after a game with those `places` (groups of seats, best first)."""
    rank = {seat: index for index, group in enumerate(places) for seat in group}
    teams = [[MODEL.create_rating([mu, sigma])] for mu, sigma in ratings]
    rated = MODEL.rate(teams, ranks=[rank[seat] for seat in range(len(ratings))])
    return [(team[0].mu, team[0].sigma) for team in rated]


def rated_puzzle(
    player: tuple[float, float], puzzle: tuple[float, float], *, solved: bool
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The player's and the puzzle's (mu, sigma) after a try: a game of two, the solver of a
    puzzle beating it, and a puzzle that was not solved beating its player."""
    teams = [[MODEL.create_rating(list(player))], [MODEL.create_rating(list(puzzle))]]
    rated = MODEL.rate(teams, ranks=[0, 1] if solved else [1, 0])
    (player_after,), (puzzle_after,) = rated
    return (player_after.mu, player_after.sigma), (puzzle_after.mu, puzzle_after.sigma)
