"""Who has a table socket open, kept in Redis so that every Daphne process sees it.

Each open socket is one member of a sorted set per (table, user), scored with the time it was
last seen. The socket refreshes its score every ``HEARTBEAT_SECONDS``; a member not seen for
``STALE_SECONDS`` belongs to a process that died without closing it, and counts no more. So a
crash heals itself within a minute, and adding or removing one socket never disturbs another
(no shared counter to corrupt when sockets come and go quickly).
"""

from __future__ import annotations

import time
from functools import cache as once

import redis
from django.conf import settings
from django.core.cache import cache

HEARTBEAT_SECONDS = 20
STALE_SECONDS = 60


@once
def _redis() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


def key(table_id: int | str, user_id: int | str) -> str:
    """The Redis key of one user's sockets at one table (inside this site's cache prefix)."""
    return cache.make_key(f"games:presence:{table_id}:{user_id}")


def add(table_id: int, user_id: int, connection: str) -> bool:
    """Record (or refresh) one open socket; True when it did not count until now."""
    name = key(table_id, user_id)
    now = time.time()
    with _redis().pipeline() as pipe:
        pipe.zscore(name, connection)
        pipe.zadd(name, {connection: now})
        pipe.expire(name, STALE_SECONDS)
        seen, *_ = pipe.execute()
    return seen is None or seen < now - STALE_SECONDS


def remove(table_id: int, user_id: int, connection: str) -> int:
    """Forget one socket; returns how many live sockets the user still has at the table."""
    name = key(table_id, user_id)
    with _redis().pipeline() as pipe:
        pipe.zrem(name, connection)
        pipe.zremrangebyscore(name, "-inf", time.time() - STALE_SECONDS)
        pipe.zcard(name)
        *_, left = pipe.execute()
    return int(left)


def count(table_id: int, user_id: int) -> int:
    """The user's live sockets at the table."""
    return int(_redis().zcount(key(table_id, user_id), time.time() - STALE_SECONDS, "+inf"))


def connected(table_id: int, user_ids: list[int]) -> set[int]:
    """Those of `user_ids` with at least one live socket at the table."""
    since = time.time() - STALE_SECONDS
    with _redis().pipeline(transaction=False) as pipe:
        for user_id in user_ids:
            pipe.zcount(key(table_id, user_id), since, "+inf")
        counts = pipe.execute()
    return {user_id for user_id, live in zip(user_ids, counts, strict=True) if live}
