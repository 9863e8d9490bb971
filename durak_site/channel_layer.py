"""The Redis channel layer with a connection pool that waits instead of failing, and a send to
many groups at once.

channels-redis gives each server a redis-py pool that raises ``MaxConnectionsError`` once its
connections are all in use, as when hundreds of sockets close at once and each leaves its
groups. A broadcast that raised after a commit would be lost; here a burst queues for a free
connection instead.

A change's states go to one group per seat and one for the spectators. ``group_send`` costs four
round trips per group, and each process then pops one message per group from Redis;
``group_send_many`` sends them all with two round trips per Redis server, and each process gets
one message carrying its sockets' states, which ``receive_single`` hands out one by one.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict, deque

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


# The key of a message that carries several, each for its own channels (group_send_many).
_BATCH = "__batch__"


class RedisChannelLayer(core.RedisChannelLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Parts of a received batch not handed out yet, by the process's channel.
        self._batches: dict[str, deque] = {}

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(
            host.pop("address"),
            max_connections=POOL_CONNECTIONS,
            timeout=POOL_WAIT_SECONDS,
            **host,
        )

    async def receive_single(self, channel: str) -> tuple[str | list[str], dict]:
        """The next message off the process's list; a batch is handed out one part at a time."""
        held = self._batches.get(channel)
        if held:
            return held.popleft()
        names, message = await super().receive_single(channel)
        if _BATCH not in message:
            return names, message
        parts = deque((part_names, part) for part_names, part in message[_BATCH])
        self._batches[channel] = parts
        return parts.popleft()

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

        # What each Redis list (one per process) gets, in order: (its channels, message).
        by_key: dict[bytes, list[tuple[list[str], dict]]] = defaultdict(list)
        key_server: dict[bytes, int] = {}
        key_capacity: dict[bytes, int] = {}
        for (_group, message), names in zip(sends, members, strict=True):
            for channel in names:
                local = self.non_local_name(channel) if "!" in channel else channel
                key = (self.prefix + local).encode("utf8")
                batch = by_key[key]
                if batch and batch[-1][1] is message:
                    batch[-1][0].append(channel)
                else:
                    batch.append(([channel], message))
                key_server[key] = self.consistent_hash(local)
                key_capacity[key] = self.get_capacity(channel)
        keys_by_server: dict[int, list[bytes]] = defaultdict(list)
        arguments_by_server: dict[int, list] = defaultdict(list)
        for key, batch in by_key.items():
            # A process gets one message for all its sockets' states of the change.
            body = (
                {**batch[0][1], "__asgi_channel__": batch[0][0]}
                if len(batch) == 1
                else {"__asgi_channel__": [], _BATCH: [[names, part] for names, part in batch]}
            )
            keys_by_server[key_server[key]].append(key)
            arguments_by_server[key_server[key]] += [self.serialize(body), key_capacity[key]]
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
