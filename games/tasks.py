"""Celery tasks: thin callers of the services, safe to run twice."""

from __future__ import annotations

import logging
import threading
import time

from celery import shared_task, signals

from games import deadlines, services

# A loop that was handed over but found no free worker for this long is superseded by nudges.
LOOP_HANDOVER_EXPIRES = 60
logger = logging.getLogger(__name__)


@shared_task(name="games.tasks.seat_away_check", ignore_result=True)
def seat_away_check(seat_id: int) -> bool:
    """Mark a player away once he has been disconnected for longer than one turn time."""
    return services.seat_mark_away(seat_id=seat_id)


@shared_task(name="games.tasks.fire_deadlines", ignore_result=True)
def fire_deadlines() -> int | None:
    """Run the deadline loop for a while unless another worker runs it, then queue it again.

    Every worker sends this each second; a run that finds the loop running returns at once.
    """
    fired = deadlines.run_loop()
    if fired is not None:
        fire_deadlines.apply_async(expires=LOOP_HANDOVER_EXPIRES)
    return fired


def nudge_deadline_loop() -> None:
    """Send the loop a nudge each second for the worker's life, whatever the broker does."""
    while True:
        time.sleep(deadlines.NUDGE_SECONDS)
        try:
            fire_deadlines.apply_async(expires=deadlines.NUDGE_SECONDS)
        except Exception as error:  # noqa: BLE001 - the broker is away; the next nudge retries
            logger.debug("no deadline nudge: %s", error)


@signals.worker_ready.connect
def start_deadline_loop(**kwargs) -> None:
    """A worker takes up the loop at once if nobody runs it, and keeps nudging it: with beat
    gone, and after a broker restart, the loop still runs."""
    fire_deadlines.delay()
    threading.Thread(target=nudge_deadline_loop, name="deadline-nudge", daemon=True).start()


@shared_task(name="games.tasks.bot_move", ignore_result=True)
def bot_move(game_id: int, version: int) -> bool:
    """Play a bot's move at a practice table if the game is still at `version`."""
    return services.bot_play(game_id=game_id, version=version)
