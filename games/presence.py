"""Who has which sockets open, kept in Redis so that every Daphne process sees it.

Each open table socket is one member of a sorted set per (table, user) and of one per table
(which tells whether anyone watches besides the players, and on which web processes: a table
socket's connection is ``<process>@<channel>``, games.broadcast), and each open socket of any
kind one member of a sorted set per user (for the per-user cap), scored with the time it was
last seen.
The socket refreshes its score every ``HEARTBEAT_SECONDS``; a member not seen for
``STALE_SECONDS`` belongs to a process that died without closing it, and counts no more. So a
crash heals itself within a minute, and adding or removing one socket never disturbs another
(no shared counter to corrupt when sockets come and go quickly).

A table page reports when it is hidden (another tab or app in front, the screen off): its
socket is then also a member of a set per (table, user) until it is shown again or closes. A
user with a live socket outside that set has the table in front of him, and gets no push.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache as once

import redis
from django.conf import settings
from django.core.cache import cache

HEARTBEAT_SECONDS = 20
STALE_SECONDS = 60
# A hidden page's mark outlives any socket; a closed socket's is removed with it, and one of a
# process that died counts no more once its socket is stale.
HIDDEN_SECONDS = 24 * 3600

# One atomic step, so sockets opened at once on several processes cannot all slip under the cap.
_CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2] - ARGV[3])
local known = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not known and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


@once
def redis_client() -> redis.Redis:
    """One client per process for the games' own Redis keys."""
    return redis.Redis.from_url(settings.REDIS_URL)


@once
def _claim_script():
    return redis_client().register_script(_CLAIM)


def user_key(user_id: int | str) -> str:
    """The Redis key of all of one user's open sockets."""
    return cache.make_key(f"games:sockets:{user_id}")


def claim(user_id: int, connection: str, limit: int) -> bool:
    """Count one more open socket of the user unless he already has `limit` live ones."""
    return bool(
        _claim_script()(
            keys=[user_key(user_id)], args=[connection, time.time(), STALE_SECONDS, limit]
        )
    )


def refresh(user_id: int, connection: str) -> None:
    """Keep a claimed socket counted (a heartbeat)."""
    name = user_key(user_id)
    with redis_client().pipeline() as pipe:
        pipe.zadd(name, {connection: time.time()})
        pipe.expire(name, STALE_SECONDS)
        pipe.execute()


def unclaim(user_id: int, connection: str) -> None:
    """Stop counting a closed socket."""
    redis_client().zrem(user_key(user_id), connection)


def key(table_id: int | str, user_id: int | str) -> str:
    """The Redis key of one user's sockets at one table (inside this site's cache prefix)."""
    return cache.make_key(f"games:presence:{table_id}:{user_id}")


def table_key(table_id: int | str) -> str:
    """The Redis key of every socket at one table, each as ``<user id>:<connection>``."""
    return cache.make_key(f"games:presence:{table_id}")


def add(table_id: int, user_id: int, connection: str) -> bool:
    """Record (or refresh) one open socket; True when it did not count until now."""
    name, everyone = key(table_id, user_id), table_key(table_id)
    now = time.time()
    with redis_client().pipeline() as pipe:
        pipe.zscore(name, connection)
        pipe.zadd(name, {connection: now})
        pipe.expire(name, STALE_SECONDS)
        pipe.zadd(everyone, {f"{user_id}:{connection}": now})
        pipe.zremrangebyscore(everyone, "-inf", now - STALE_SECONDS)
        pipe.expire(everyone, STALE_SECONDS)
        seen, *_ = pipe.execute()
    return seen is None or seen < now - STALE_SECONDS


def hidden_key(table_id: int | str, user_id: int | str) -> str:
    """The Redis key of one user's sockets at one table whose pages are hidden."""
    return cache.make_key(f"games:hidden:{table_id}:{user_id}")


def set_visible(table_id: int, user_id: int, connection: str, visible: bool) -> None:
    """Record whether the page of one socket is in front of its user."""
    name = hidden_key(table_id, user_id)
    if visible:
        redis_client().srem(name, connection)
        return
    with redis_client().pipeline() as pipe:
        pipe.sadd(name, connection)
        pipe.expire(name, HIDDEN_SECONDS)
        pipe.execute()


def watching(table_id: int, user_ids: list[int]) -> set[int]:
    """Those of `user_ids` with a live socket at the table whose page is not hidden: one round
    trip."""
    since = time.time() - STALE_SECONDS
    with redis_client().pipeline(transaction=False) as pipe:
        for user_id in user_ids:
            pipe.zrangebyscore(key(table_id, user_id), since, "+inf")
            pipe.smembers(hidden_key(table_id, user_id))
        answers = pipe.execute()
    return {
        user_id
        for user_id, live, hidden in zip(user_ids, answers[::2], answers[1::2], strict=True)
        if set(live) - hidden
    }


def remove(table_id: int, user_id: int, connection: str) -> int:
    """Forget one socket; returns how many live sockets the user still has at the table."""
    name = key(table_id, user_id)
    with redis_client().pipeline() as pipe:
        pipe.srem(hidden_key(table_id, user_id), connection)
        pipe.zrem(table_key(table_id), f"{user_id}:{connection}")
        pipe.zrem(name, connection)
        pipe.zremrangebyscore(name, "-inf", time.time() - STALE_SECONDS)
        pipe.zcard(name)
        *_, left = pipe.execute()
    return int(left)


def count(table_id: int, user_id: int) -> int:
    """The user's live sockets at the table."""
    return int(redis_client().zcount(key(table_id, user_id), time.time() - STALE_SECONDS, "+inf"))


def connected(table_id: int, user_ids: list[int]) -> set[int]:
    """Those of `user_ids` with at least one live socket at the table."""
    return connected_at({table_id: user_ids})[table_id]


def connected_at(users_by_table: dict[int, list[int]]) -> dict[int, set[int]]:
    """For each table, those of its users with at least one live socket there: one round trip
    for all of them (the sweeper asks about every playing table)."""
    since = time.time() - STALE_SECONDS
    pairs = [(table_id, user_id) for table_id, users in users_by_table.items() for user_id in users]
    with redis_client().pipeline(transaction=False) as pipe:
        for table_id, user_id in pairs:
            pipe.zcount(key(table_id, user_id), since, "+inf")
        counts = pipe.execute()
    live: dict[int, set[int]] = {table_id: set() for table_id in users_by_table}
    for (table_id, user_id), sockets in zip(pairs, counts, strict=True):
        if sockets:
            live[table_id].add(user_id)
    return live


@dataclass(frozen=True)
class Audience:
    """Who has live sockets at a table: the seated users among them, whether anyone else (a
    spectator) does, and by user the web processes holding his sockets there (each named by
    its fan-out group, ``games.broadcast.LocalSockets``)."""

    connected: set[int]
    spectators: bool
    processes: dict[int, frozenset[str]]


def audience(table_id: int, user_ids: list[int]) -> Audience:
    """The table's `Audience`, `user_ids` being its seated users: one round trip."""
    since = time.time() - STALE_SECONDS
    with redis_client().pipeline(transaction=False) as pipe:
        for user_id in user_ids:
            pipe.zcount(key(table_id, user_id), since, "+inf")
        pipe.zrangebyscore(table_key(table_id), since, "+inf")
        *counts, sockets = pipe.execute()
    connected = {user_id for user_id, live in zip(user_ids, counts, strict=True) if live}
    processes = _processes_by_user(sockets)
    return Audience(connected, bool(processes.keys() - set(user_ids)), processes)


def table_processes(table_id: int) -> frozenset[str]:
    """The web processes holding live sockets at the table."""
    since = time.time() - STALE_SECONDS
    sockets = redis_client().zrangebyscore(table_key(table_id), since, "+inf")
    return frozenset().union(*_processes_by_user(sockets).values())


def _processes_by_user(sockets: list[bytes]) -> dict[int, frozenset[str]]:
    """By user, the processes named in his sockets' connections (``<process>@<channel>``)."""
    found: dict[int, set[str]] = {}
    for member in sockets:
        user_id, _, connection = member.decode().partition(":")
        process, at, _channel = connection.partition("@")
        found.setdefault(int(user_id), set()).update([process] if at else [])
    return {user_id: frozenset(names) for user_id, names in found.items()}


def online(user_ids: list[int]) -> set[int]:
    """Those of `user_ids` with any live socket (a page of the site open): one round trip."""
    since = time.time() - STALE_SECONDS
    with redis_client().pipeline(transaction=False) as pipe:
        for user_id in user_ids:
            pipe.zcount(user_key(user_id), since, "+inf")
        counts = pipe.execute()
    return {user_id for user_id, live in zip(user_ids, counts, strict=True) if live}
