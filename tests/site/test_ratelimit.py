"""The sockets' token buckets wait for a free Redis connection under a burst instead of failing."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio
from django.conf import settings
from redis.exceptions import MaxConnectionsError

from durak_site import ratelimit, redis_pools

CHECKS = 300


@pytest.mark.asyncio
async def test_a_burst_of_checks_waits_for_a_free_connection(monkeypatch):
    # Hundreds of sockets opening at once each check their address's and cookie's buckets.
    monkeypatch.setattr(redis_pools, "POOL_CONNECTIONS", 4)
    taken = await asyncio.gather(
        *(ratelimit.take_async(f"burst-test-{n}", rate=1, burst=2) for n in range(CHECKS))
    )
    assert taken == [True] * CHECKS
    # Each bucket holds what is left of its burst: a second check takes the last token.
    again = await asyncio.gather(
        *(ratelimit.take_async(f"burst-test-{n}", rate=1, burst=2) for n in range(CHECKS))
    )
    assert again == [True] * CHECKS


@pytest.mark.asyncio
async def test_the_plain_pool_would_have_failed_under_the_same_burst():
    client = redis.asyncio.Redis.from_url(settings.REDIS_URL, max_connections=4)
    with pytest.raises(MaxConnectionsError):
        await asyncio.gather(*(client.eval("return 1", 0) for _ in range(CHECKS)))
    await client.aclose()
