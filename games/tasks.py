"""Celery tasks: thin callers of the services, safe to run twice."""

from __future__ import annotations

from celery import shared_task, signals

from games import deadlines, services

# A loop that was handed over but found no free worker for this long is superseded by nudges.
LOOP_HANDOVER_EXPIRES = 60


@shared_task(name="games.tasks.sweep_overdue_games", ignore_result=True)
def sweep_overdue_games() -> int:
    """Catch overdue deadlines, long disconnections and expired rematches whose timer was lost;
    close open tables nobody joined in time."""
    return services.games_sweep()


@shared_task(name="games.tasks.seat_away_check", ignore_result=True)
def seat_away_check(seat_id: int) -> bool:
    """Mark a player away once he has been disconnected for longer than one turn time."""
    return services.seat_mark_away(seat_id=seat_id)


@shared_task(name="games.tasks.fire_deadlines", ignore_result=True)
def fire_deadlines() -> int | None:
    """Run the deadline loop for a while unless another worker runs it, then queue it again.

    Beat sends this every second; a run that finds the loop running returns at once.
    """
    fired = deadlines.run_loop()
    if fired is not None:
        fire_deadlines.apply_async(expires=LOOP_HANDOVER_EXPIRES)
    return fired


@signals.worker_ready.connect
def start_deadline_loop(**kwargs) -> None:
    """A worker that starts takes up the loop at once if nobody runs it."""
    fire_deadlines.delay()


@shared_task(name="games.tasks.bot_move", ignore_result=True)
def bot_move(game_id: int, version: int) -> bool:
    """Play a bot's move at a practice table if the game is still at `version`."""
    return services.bot_play(game_id=game_id, version=version)
