"""Redis connection pools that make a burst wait for a free connection.

redis-py's own pool raises ``MaxConnectionsError`` once its connections are all in use, as when
hundreds of sockets open or close at once. There that error would close a socket as if Redis
were down, or lose a broadcast after its commit; a burst here queues instead.
"""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool

POOL_CONNECTIONS = 100
# Far above any burst's wait; a pool whose Redis is gone still fails rather than hangs.
POOL_WAIT_SECONDS = 30


def waiting_pool(url: str, **options) -> BlockingConnectionPool:
    """An asyncio pool of at most ``POOL_CONNECTIONS`` to ``url`` that waits when all are busy."""
    return BlockingConnectionPool.from_url(
        url, max_connections=POOL_CONNECTIONS, timeout=POOL_WAIT_SECONDS, **options
    )
