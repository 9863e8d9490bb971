"""The Redis channel layer with a connection pool that waits instead of failing, and a send to
many groups at once.

channels-redis gives each server a redis-py pool that raises ``MaxConnectionsError`` once its
connections are all in use, as when hundreds of sockets close at once and each leaves its
groups. A broadcast that raised after a commit would be lost; here a burst queues for a free
connection instead.

A change's states go to one group per seat and one for the spectators. ``group_send`` costs four
round trips per group; ``group_send_many`` sends them all with two per Redis server.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict

from channels_redis import core
from redis.asyncio import BlockingConnectionPool

logger = logging.getLogger(__name__)

POOL_CONNECTIONS = 100
# Far above any burst's wait; a layer whose Redis is gone still fails rather than hangs.
POOL_WAIT_SECONDS = 30


# channels-redis's group send for many keys at once: expire old messages, add the new one unless
# the channel is full. Each message is scored a microsecond after the one before, so a channel
# that gets several receives them in the order sent.
_SEND_MANY = """
local now, expiry = tonumber(ARGV[1]), tonumber(ARGV[2])
local over_capacity = 0
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, math.floor(now) - expiry)
  if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[2 + 2 * i]) then
    redis.call('ZADD', KEYS[i], now + i / 1000000, ARGV[1 + 2 * i])
    redis.call('EXPIRE', KEYS[i], expiry)
  else
    over_capacity = over_capacity + 1
  end
end
return over_capacity
"""


class RedisChannelLayer(core.RedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(
            host.pop("address"),
            max_connections=POOL_CONNECTIONS,
            timeout=POOL_WAIT_SECONDS,
            **host,
        )

    async def group_send_many(self, sends: list[tuple[str, dict]]) -> None:
        """Send each (group, message) as ``group_send`` does, in their order: one pipeline per
        server for the groups' members, then one script per server for the messages."""
        now = time.time()
        groups_by_server: dict[int, list[int]] = defaultdict(list)
        for position, (group, _message) in enumerate(sends):
            assert self.require_valid_group_name(group), "Group name not valid"
            groups_by_server[self.consistent_hash(group)].append(position)
        members: list[list[str]] = [[] for _ in sends]
        for index, positions in groups_by_server.items():
            pipe = self.connection(index).pipeline(transaction=False)
            for position in positions:
                key = self._group_key(sends[position][0])
                pipe.zremrangebyscore(key, min=0, max=int(now) - self.group_expiry)
                pipe.zrange(key, 0, -1)
            replies = await pipe.execute()
            for position, names in zip(positions, replies[1::2], strict=True):
                members[position] = [name.decode("utf8") for name in names]

        keys_by_server: dict[int, list[bytes]] = defaultdict(list)
        arguments_by_server: dict[int, list] = defaultdict(list)
        for (_group, message), names in zip(sends, members, strict=True):
            keys, bodies, capacities = self._map_channel_keys_to_connection(names, message)
            for index, channel_keys in keys.items():
                for channel_key in channel_keys:
                    keys_by_server[index].append(channel_key)
                    arguments_by_server[index] += [bodies[channel_key], capacities[channel_key]]
        for index, channel_keys in keys_by_server.items():
            over_capacity = await self.connection(index).eval(
                _SEND_MANY,
                len(channel_keys),
                *channel_keys,
                now,
                int(self.expiry),
                *arguments_by_server[index],
            )
            if over_capacity:
                logger.warning("%s channel messages dropped: over capacity", over_capacity)
