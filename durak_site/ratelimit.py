"""Token buckets in Redis, shared by every process: for sockets' messages and opens, chat
messages, new tables."""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass, field
from functools import cache as once

import redis
import redis.asyncio
from django.conf import settings
from django.core.cache import cache
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from durak_site.redis_pools import waiting_pool

# Refill every bucket, take one token from each if each has one (else from none), and store
# them, in one atomic step timed by the Redis clock, so that the processes' own clocks cannot
# disagree about it. KEYS are the buckets; ARGV their rates and bursts, in pairs. Returns the
# milliseconds until each bucket holds a token again: all 0 when the tokens were taken.
_TAKE = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local tokens = {}
local waits = {}
local taken = 1
for i, bucket in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local stored = redis.call('HMGET', bucket, 'tokens', 'at')
  local at = tonumber(stored[2]) or now
  tokens[i] = math.min(burst, (tonumber(stored[1]) or burst) + math.max(0, now - at) * rate)
  waits[i] = 0
  if tokens[i] < 1 then
    taken = 0
    waits[i] = math.ceil((1 - tokens[i]) / rate * 1000)
  end
end
for i, bucket in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  redis.call('HSET', bucket, 'tokens', tostring(tokens[i] - taken), 'at', tostring(now))
  redis.call('EXPIRE', bucket, math.ceil(burst / rate) + 1)
end
return waits
"""


@dataclass(frozen=True)
class Bucket:
    """One token bucket: its subject (`key`), tokens added a second, and the most it holds."""

    subject: int | str
    rate: float
    burst: float
    name: str = field(init=False)  # its Redis key, made once

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", key(self.subject))


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
    return not any(_take_script()(keys=[key(subject)], args=[rate, burst]))


async def take_async(subject: int | str, *, rate: float, burst: float) -> bool:
    """`take` on the running event loop: a socket's message costs no thread."""
    return await take_all_async(Bucket(subject, rate, burst))


# What this process knows of each bucket it used lately: its tokens at a moment (monotonic), and
# when it is full again; least lately used first. Redis holds at most as many tokens as this
# view, which counts only this process's takes besides what Redis told it: a take the view
# refuses is refused without a round trip, as Redis would refuse it, so that a flood costs no
# round trip per message. A bucket is forgotten once it would be full again.
_seen: dict[str, tuple[float, float, float]] = {}


def forget_empty() -> None:
    """Forget what this process knows of the buckets (when their keys were removed from Redis)."""
    _seen.clear()


def _tokens_seen(bucket: Bucket, now: float) -> float:
    tokens, at, _full_at = _seen.get(bucket.name, (bucket.burst, now, now))
    return min(bucket.burst, tokens + (now - at) * bucket.rate)


async def take_all_async(*buckets: Bucket) -> bool:
    """Spend a token of each bucket in one round trip, or of none when any is empty (False)."""
    now = time.monotonic()
    if any(_tokens_seen(bucket, now) < 1 for bucket in buckets):
        return False
    keys = [bucket.name for bucket in buckets]
    args = [number for bucket in buckets for number in (bucket.rate, bucket.burst)]
    waits = await _async_take_script()(keys=keys, args=args)
    taken = not any(waits)
    for bucket, wait in zip(buckets, waits, strict=True):
        # Empty until Redis said it refills; else what this process saw, less the token taken.
        tokens = 1 - wait / 1000 * bucket.rate if wait else _tokens_seen(bucket, now) - taken
        _seen.pop(bucket.name, None)
        _seen[bucket.name] = (tokens, now, now + (bucket.burst - tokens) / bucket.rate)
    while _seen and next(iter(_seen.values()))[2] <= now:
        del _seen[next(iter(_seen))]
    return taken
