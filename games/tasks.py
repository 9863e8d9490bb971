"""Celery tasks: thin callers of the services, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.tasks.game_deadline", ignore_result=True)
def game_deadline(game_id: int, version: int) -> bool:
    """Act for the idle players if the game is still at `version` and its deadline has passed."""
    return services.game_timeout(game_id=game_id, version=version)


@shared_task(name="games.tasks.sweep_overdue_games", ignore_result=True)
def sweep_overdue_games() -> int:
    """Catch overdue deadlines, long disconnections and expired rematches whose timer was lost;
    close open tables nobody joined in time."""
    return services.games_sweep()


@shared_task(name="games.tasks.seat_away_check", ignore_result=True)
def seat_away_check(seat_id: int) -> bool:
    """Mark a player away once he has been disconnected for longer than one turn time."""
    return services.seat_mark_away(seat_id=seat_id)
