"""Game deadlines fired from their index, by one loop across all workers.

The truth is the indexed ``Game.deadline`` column that every move sets in its transaction: no task
is queued per move, so the cost of timers does not grow with the move rate, and a worker that dies
loses nothing.

Every Celery worker keeps a thread (``keep_running``, started when the worker is ready) that runs
the loop whenever no other worker does: one loop runs at a time, in whichever worker holds the
Redis lock. It fires the due deadlines (``services.deadlines_fire``), runs the games sweep every
``SWEEP_SECONDS`` (lost timers, rematch stakes past their window, abandoned open tables) and sleeps
until the next deadline (at most ``TICK_SECONDS``). The other workers look again every
``RETRY_SECONDS``, and take the loop over once the lock of a worker that died, or lost Redis,
lapses (``LOCK_SECONDS``). No message of the broker is involved, so timers need neither beat nor
the worker's broker connection. Firing is safe twice: ``game_timeout`` acts only for an unchanged
version whose deadline has passed.

While players cannot act (no web process alive, Redis or PostgreSQL down or stalled) the loop fires
nothing (``games.services.clocks``), and once they can the deadlines are pushed back by the length
of the outage. The errors the loop meets from Redis or PostgreSQL are noted as outages too. The
loop beats as the ``deadline-loop`` role (``durak_site.ops.heartbeats``) while it runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.core.cache import cache
from django.db import DatabaseError, close_old_connections
from django.utils import timezone
from redis.exceptions import LockError, RedisError

from durak_site.ops import heartbeats
from games import presence, services
from games.services import clocks

# A new deadline is never less than MIN_THROW_SECONDS (3 s) away, so sleeping this long can
# never miss one: each fires at most this late.
TICK_SECONDS = 0.25
LOOP_SECONDS = 30.0
LOCK_SECONDS = 3.0
SWEEP_SECONDS = 5.0
RETRY_SECONDS = 1.0
MIN_SLEEP_SECONDS = 0.02
logger = logging.getLogger(__name__)


def lock_name() -> str:
    return cache.make_key("games:deadline-loop")


def sweep() -> int:
    """The games sweep; its failure is logged and leaves the loop running."""
    try:
        return services.games_sweep()
    except Exception:
        logger.exception("the games sweep failed")
        return 0


def run_loop(
    *, seconds: float = LOOP_SECONDS, sleep: Callable[[float], None] = time.sleep
) -> int | None:
    """Fire deadlines for `seconds` while holding the loop's lock; None when another loop runs.

    Returns how many games were acted on. Ends early when the lock lapsed or Redis failed.
    """
    lock = presence.redis_client().lock(lock_name(), timeout=LOCK_SECONDS, blocking=False)
    try:
        if not lock.acquire():
            return None
    except RedisError:
        logger.warning("no deadline loop while Redis cannot be reached")
        _note_stop(redis=False)
        return None
    fired = 0
    started = time.monotonic()
    swept_at = started - SWEEP_SECONDS
    beaten = float("-inf")
    try:
        while time.monotonic() < started + seconds:
            lock.reacquire()  # LockNotOwnedError when it lapsed and another loop took over
            if time.monotonic() >= beaten + heartbeats.BEAT_SECONDS:
                beaten = time.monotonic()
                heartbeats.beat(heartbeats.DEADLINE_LOOP)
            if clocks.watch():
                fired += services.deadlines_fire()
            if time.monotonic() >= swept_at + SWEEP_SECONDS:
                swept_at = time.monotonic()
                sweep()
            upcoming = services.deadline_next()
            close_old_connections()
            wait = TICK_SECONDS
            if upcoming is not None:
                wait = min(wait, (upcoming - timezone.now()).total_seconds())
            # A deadline that stays due (a failing game) must not make the loop spin.
            sleep(max(MIN_SLEEP_SECONDS, wait))
        lock.release()
    except LockError:
        pass
    except RedisError:
        logger.warning("the deadline loop lost Redis; it starts again once Redis is back")
        _note_stop(redis=False)
    return fired


def _note_stop(*, redis: bool = True, database: bool = True) -> None:
    now = time.time()
    clocks.note_stop(now, now, redis=redis, database=database)


def keep_running(sleep: Callable[[float], None] = time.sleep) -> None:
    """Run the loop whenever no other worker does, for the worker's life."""
    while True:
        try:
            ran = run_loop()
        except DatabaseError:
            logger.exception("the deadline loop lost PostgreSQL; starting it again")
            _note_stop(database=False)
            close_old_connections()
            ran = None
        except Exception:
            # A broken connection is replaced, then retried.
            logger.exception("the deadline loop failed; starting it again")
            close_old_connections()
            ran = None
        if ran is None:
            sleep(RETRY_SECONDS)
