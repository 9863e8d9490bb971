"""Token buckets in Redis, shared by every Daphne process: one per user for his sockets'
messages, and one per user and per client address for opening sockets."""

from __future__ import annotations

from functools import cache as once

from django.core.cache import cache

from games import presence

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
    return presence.redis_client().register_script(_TAKE)


def key(subject: int | str) -> str:
    """The Redis key of one bucket (inside this site's cache prefix); a user id names the
    user's message bucket."""
    return cache.make_key(f"games:rate:{subject}")


def take(subject: int | str, *, rate: float, burst: float) -> bool:
    """Spend one of the bucket's tokens; False when it has none left (the request is refused)."""
    return bool(_take_script()(keys=[key(subject)], args=[rate, burst]))
