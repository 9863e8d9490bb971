"""The Redis channel layer with a connection pool that waits instead of failing, a send to many
groups at once, and one reader per process.

channels-redis gives each server a redis-py pool that raises once its connections are all in
use, as when hundreds of sockets close at once and each leaves its groups; a broadcast that
raised after a commit would be lost. Its pools here wait for a free connection instead.

A change's states go to one group per seat and one for the spectators. ``group_send`` costs four
round trips per group; ``group_send_many`` sends them all with two round trips per Redis server,
and each other process gets one message carrying its sockets' states. The sending process's
own sockets get theirs in memory, without Redis.

channels-redis receives one message at a time with four round trips (a backup copy guards it
against a cancelled receive), and each socket's wait creates tasks around a shared lock. Here
one reader task per process takes everything waiting on the process's list in one round trip
and hands each socket its messages; a socket that stops waiting loses nothing, as the reader
is no socket's task.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict, deque

from channels_redis import core
from redis.asyncio import BlockingConnectionPool

from durak_site.backends.redis_pools import waiting_pool

logger = logging.getLogger(__name__)

# Messages the reader takes off the process's list in one round trip.
READ_BATCH = 256


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


class Inbox:
    """The messages for this process's channels, on the event loop that receives them.

    Messages wait per channel until a receiver asks. Those of a channel nobody has asked for
    within the layer's expiry (a socket that has gone) are dropped.
    """

    def __init__(
        self, layer: RedisChannelLayer, loop: asyncio.AbstractEventLoop, process_channel: str
    ) -> None:
        self.layer, self.loop, self.process_channel = layer, loop, process_channel
        self.waiting: dict[str, deque[asyncio.Future]] = defaultdict(deque)
        self.held: dict[str, deque[dict]] = defaultdict(deque)
        self.asked: dict[str, float] = {}
        self.reader: asyncio.Task | None = None
        self.swept_at = time.monotonic()

    async def get(self, channel: str) -> dict:
        self.asked[channel] = time.monotonic()
        held = self.held.get(channel)
        if held:
            message = held.popleft()
            if not held:
                del self.held[channel]
            return message
        if self.reader is None:
            self.reader = self.loop.create_task(self.read())
        waiter = self.loop.create_future()
        waiters = self.waiting[channel]
        waiters.append(waiter)
        try:
            return await waiter
        finally:
            if waiter in waiters:
                waiters.remove(waiter)
            if not waiters and self.waiting.get(channel) is waiters:
                del self.waiting[channel]

    def put(self, channels: list[str], message: dict) -> None:
        for channel in channels:
            waiters = self.waiting.get(channel)
            while waiters:
                waiter = waiters.popleft()
                if not waiter.done():
                    waiter.set_result(message)
                    break
            else:
                self.held[channel].append(message)
                self.asked.setdefault(channel, time.monotonic())

    async def read(self) -> None:
        """Move the process's messages from Redis to its channels, until Redis fails: then
        every waiting receiver gets the error, as it would have from its own read."""
        layer = self.layer
        key = layer.prefix + self.process_channel
        connection = layer.connection(layer.consistent_hash(self.process_channel))
        try:
            while True:
                found = await connection.zpopmin(key, READ_BATCH)
                if not found:
                    popped = await connection.bzpopmin(key, timeout=layer.brpop_timeout)
                    found = [popped[1:]] if popped else []
                for content, _score in found:
                    self.unpack(layer.deserialize(content))
                self.sweep()
        except Exception as error:  # noqa: BLE001 - every failure reaches the receivers
            self.reader = None
            for waiters in self.waiting.values():
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_exception(error)

    def unpack(self, message: dict) -> None:
        channels = message.pop("__asgi_channel__")
        if _BATCH in message:
            for part_channels, part in message[_BATCH]:
                self.put(part_channels, part)
        else:
            self.put(channels if isinstance(channels, list) else [channels], message)

    def sweep(self) -> None:
        now = time.monotonic()
        if now - self.swept_at < self.layer.expiry:
            return
        self.swept_at = now
        for channel, asked in list(self.asked.items()):
            if channel not in self.waiting and now - asked > self.layer.expiry:
                del self.asked[channel]
                self.held.pop(channel, None)


class RedisChannelLayer(core.RedisChannelLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # By process channel (the part of a channel's name up to its "!").
        self.inboxes: dict[str, Inbox] = {}

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        return waiting_pool(host.pop("address"), **host)

    async def receive(self, channel: str) -> dict:
        if "!" not in channel:
            return await super().receive(channel)
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        process_channel = self.non_local_name(channel)
        assert process_channel.endswith(self.client_prefix + "!"), "Wrong client prefix"
        loop = asyncio.get_running_loop()
        inbox = self.inboxes.get(process_channel)
        if inbox is None or inbox.loop is not loop:
            if inbox is not None and not inbox.loop.is_closed():
                if inbox.waiting:
                    raise RuntimeError("Two event loops are trying to receive() on one layer!")
                if inbox.reader is not None:
                    inbox.loop.call_soon_threadsafe(inbox.reader.cancel)
            left = inbox
            inbox = self.inboxes[process_channel] = Inbox(self, loop, process_channel)
            if left is not None:  # what the last loop read and nobody took yet
                inbox.held, inbox.asked = left.held, left.asked
        return await inbox.get(channel)

    async def group_send(self, group: str, message: dict) -> None:
        await self.group_send_many([(group, message)])

    async def flush(self) -> None:
        self.inboxes.clear()
        await super().flush()

    def deliver_here(self, process_channel: str, parts: list[tuple[list[str], dict]]) -> bool:
        """Hand messages to this process's own receivers; False when none receives yet."""
        inbox = self.inboxes.get(process_channel)
        if inbox is None or inbox.loop.is_closed():
            return False
        same_loop = asyncio.get_running_loop() is inbox.loop
        for channels, message in parts:
            if same_loop:
                inbox.put(channels, message)
            else:
                inbox.loop.call_soon_threadsafe(inbox.put, channels, message)
        return True

    async def group_send_many(self, sends: list[tuple[str, dict]]) -> None:
        """Send each (group, message) as ``group_send`` does, in their order: one pipeline per
        server for the groups' members, then one script per server for the messages of the
        other processes."""
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
        by_list: dict[str, list[tuple[list[str], dict]]] = defaultdict(list)
        for (_group, message), names in zip(sends, members, strict=True):
            for channel in names:
                batch = by_list[self.non_local_name(channel)]
                if batch and batch[-1][1] is message:
                    batch[-1][0].append(channel)
                else:
                    batch.append(([channel], message))
        keys_by_server: dict[int, list[bytes]] = defaultdict(list)
        arguments_by_server: dict[int, list] = defaultdict(list)
        for local, batch in by_list.items():
            if self.deliver_here(local, batch):
                continue
            server = self.consistent_hash(local)
            # A process gets one message for all its sockets' states of the change.
            body = (
                {**batch[0][1], "__asgi_channel__": batch[0][0]}
                if len(batch) == 1
                else {"__asgi_channel__": [], _BATCH: [[names, part] for names, part in batch]}
            )
            keys_by_server[server].append((self.prefix + local).encode())
            arguments_by_server[server] += [self.serialize(body), self.get_capacity(local)]
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
