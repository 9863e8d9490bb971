"""Which processes of the platform are alive, by role, from heartbeats kept in Redis.

Every process of a role adds itself every ``BEAT_SECONDS`` to the role's sorted set, scored
with the time; one seen within ``ALIVE_SECONDS`` is alive. That costs one pipelined write per
process a second. The set keeps a dead process's last beat for ``KEEP_SECONDS``, so after all
processes of a role died it still tells since when none is alive.

Roles: ``web`` (each web process, beating from its event loop: a process that cannot serve
stops beating), ``worker`` and ``scheduler`` (the Celery worker and beat processes), and
``deadline-loop`` (the loop that fires the games' deadlines, while it runs).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from functools import cache as once

import redis
from django.conf import settings
from django.core.cache import cache

WEB, WORKER, SCHEDULER, DEADLINE_LOOP = "web", "worker", "scheduler", "deadline-loop"
ROLES = (WEB, WORKER, SCHEDULER, DEADLINE_LOOP)
BEAT_SECONDS = 1.0
ALIVE_SECONDS = 3.0
KEEP_SECONDS = 24 * 3600
logger = logging.getLogger(__name__)


@once
def redis_client() -> redis.Redis:
    # Short timeouts: a heartbeat, or a probe reading them, must never hang on a lost Redis.
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)


def key(role: str) -> str:
    return cache.make_key(f"heartbeats:{role}")


def process_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def beat(role: str, name: str | None = None) -> None:
    """Say that this process (or `name`) of `role` is alive now."""
    now = time.time()
    with redis_client().pipeline() as pipe:
        pipe.zadd(key(role), {name or process_name(): now})
        pipe.zremrangebyscore(key(role), "-inf", now - KEEP_SECONDS)
        pipe.expire(key(role), KEEP_SECONDS)
        pipe.execute()


def beat_quietly(role: str) -> None:
    """Beat; a failure (Redis away) is logged and the next beat tries again."""
    try:
        beat(role)
    except Exception:
        logger.warning("the %s heartbeat failed", role, exc_info=True)


def alive(role: str) -> int:
    """How many processes of `role` beat within ``ALIVE_SECONDS``."""
    return int(redis_client().zcount(key(role), time.time() - ALIVE_SECONDS, "+inf"))


def alive_by_role() -> dict[str, int]:
    since = time.time() - ALIVE_SECONDS
    with redis_client().pipeline(transaction=False) as pipe:
        for role in ROLES:
            pipe.zcount(key(role), since, "+inf")
        counts = pipe.execute()
    return dict(zip(ROLES, (int(count) for count in counts), strict=True))


def last_beat(role: str) -> float | None:
    """The time of the latest beat of any process of `role` (None if none is remembered)."""
    latest = redis_client().zrevrange(key(role), 0, 0, withscores=True)
    return latest[0][1] if latest else None


def forget(role: str, name: str | None = None) -> None:
    """A process that stops cleanly stops counting at once."""
    redis_client().zrem(key(role), name or process_name())


class Beating:
    """Beat for `role` from a thread of this process until ``stop``."""

    def __init__(self, role: str) -> None:
        self.role = role
        self.stopped = threading.Event()
        beat_quietly(role)  # alive from the start
        self.thread = threading.Thread(target=self._run, name=f"heartbeat-{role}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(BEAT_SECONDS):
            beat_quietly(self.role)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join()
        _forget_quietly(self.role)


def beat_from_reactor(role: str = WEB) -> None:
    """Beat from the Twisted reactor Daphne serves with, once it runs: a web process whose event
    loop is stuck beats no more. The write itself runs in a thread, so a slow Redis never holds
    the loop up. A process that imports the application without running the reactor (a test
    that calls the application directly) does not beat."""
    from twisted.internet import reactor, task, threads

    beating = task.LoopingCall(threads.deferToThread, beat_quietly, role)
    reactor.callWhenRunning(beating.start, BEAT_SECONDS)
    reactor.addSystemEventTrigger("before", "shutdown", _forget_quietly, role)


def _forget_quietly(role: str) -> None:
    with contextlib.suppress(redis.RedisError):
        forget(role)
