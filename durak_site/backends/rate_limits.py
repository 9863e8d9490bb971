"""Token buckets in Redis, shared by every process: for sockets' messages and opens, chat
messages, new tables, friend requests and invitations."""

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

from durak_site.backends.redis_pools import waiting_pool

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


def take_all(*buckets: Bucket) -> tuple[Bucket, ...]:
    """Spend a token of each bucket in one atomic step, or of none when any is empty; the
    empty ones (none when the tokens were taken)."""
    args = [number for bucket in buckets for number in (bucket.rate, bucket.burst)]
    waits = _take_script()(keys=[bucket.name for bucket in buckets], args=args)
    return tuple(bucket for bucket, wait in zip(buckets, waits, strict=True) if wait)


async def take_async(subject: int | str, *, rate: float, burst: float) -> bool:
    """`take` on the running event loop: a socket's message costs no thread."""
    return await take_all_async(Bucket(subject, rate, burst))


# The buckets this process found empty, each with the moment (monotonic) it holds a token again,
# soonest first but for a few: until then a take is refused here, as Redis would refuse it (only
# takes change a bucket besides its refill), and a flood costs no round trip per message.
_empty_until: dict[str, float] = {}


def forget_empty() -> None:
    """Forget which buckets this process found empty (when their keys were removed from Redis)."""
    _empty_until.clear()


async def take_all_async(*buckets: Bucket) -> bool:
    """Spend a token of each bucket in one round trip, or of none when any is empty (False)."""
    keys = [bucket.name for bucket in buckets]
    now = time.monotonic()
    if any(_empty_until.get(name, 0.0) > now for name in keys):
        return False
    args = [number for bucket in buckets for number in (bucket.rate, bucket.burst)]
    waits = await _async_take_script()(keys=keys, args=args)
    while _empty_until and next(iter(_empty_until.values())) <= now:
        del _empty_until[next(iter(_empty_until))]
    for name, wait in zip(keys, waits, strict=True):
        if wait:
            _empty_until.pop(name, None)  # back at the end, in the order of refilling
            _empty_until[name] = now + wait / 1000
    return not any(waits)
