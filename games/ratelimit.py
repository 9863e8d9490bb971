"""A token bucket per user in Redis, shared by all his sockets on every Daphne process."""

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


def key(user_id: int | str) -> str:
    """The Redis key of one user's message bucket (inside this site's cache prefix)."""
    return cache.make_key(f"games:rate:{user_id}")


def take(user_id: int, *, rate: float, burst: float) -> bool:
    """Spend one of the user's tokens; False when he has none left (the message is dropped)."""
    return bool(_take_script()(keys=[key(user_id)], args=[rate, burst]))
