"""Token buckets in Redis, shared by every process: for sockets' messages and opens, chat
messages, new tables."""

from __future__ import annotations

import asyncio
import weakref
from functools import cache as once

import redis
import redis.asyncio
from django.conf import settings
from django.core.cache import cache
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from durak_site.redis_pools import waiting_pool

# Refill, take and store in one atomic step, timed by the Redis clock so that the processes'
# own clocks cannot disagree about it.
_TAKE = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(stored[1]) or burst
local at = tonumber(stored[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return taken
"""


@once
def _take_script():
    return redis.Redis.from_url(settings.REDIS_URL).register_script(_TAKE)


# One asyncio client per event loop: its connections belong to the loop that opened them.
_async_take_scripts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _async_take_script():
    loop = asyncio.get_running_loop()
    script = _async_take_scripts.get(loop)
    if script is None:
        # A connection that Redis dropped (a restart, a network blip) is replaced at once. A
        # crowd of sockets opening at once, each checking two buckets, waits for connections.
        pool = waiting_pool(settings.REDIS_URL, retry=Retry(NoBackoff(), 1))
        client = redis.asyncio.Redis(connection_pool=pool)
        script = _async_take_scripts[loop] = client.register_script(_TAKE)
    return script


def key(subject: int | str) -> str:
    """The Redis key of one bucket (inside this site's cache prefix); a user id names the
    user's message bucket."""
    return cache.make_key(f"rate:{subject}")


def take(subject: int | str, *, rate: float, burst: float) -> bool:
    """Spend one of the bucket's tokens; False when it has none left (the request is refused)."""
    return bool(_take_script()(keys=[key(subject)], args=[rate, burst]))


async def take_async(subject: int | str, *, rate: float, burst: float) -> bool:
    """`take` on the running event loop: a socket's message costs no thread."""
    return bool(await _async_take_script()(keys=[key(subject)], args=[rate, burst]))
