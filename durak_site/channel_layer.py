"""The Redis channel layer with a connection pool that waits instead of failing.

channels-redis gives each server a redis-py pool that raises ``MaxConnectionsError`` once its
connections are all in use, as when hundreds of sockets close at once and each leaves its
groups. A broadcast that raised after a commit would be lost; here a burst queues for a free
connection instead.
"""

from __future__ import annotations

from channels_redis import core
from redis.asyncio import BlockingConnectionPool

POOL_CONNECTIONS = 100
# Far above any burst's wait; a layer whose Redis is gone still fails rather than hangs.
POOL_WAIT_SECONDS = 30


class RedisChannelLayer(core.RedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(
            host.pop("address"),
            max_connections=POOL_CONNECTIONS,
            timeout=POOL_WAIT_SECONDS,
            **host,
        )
