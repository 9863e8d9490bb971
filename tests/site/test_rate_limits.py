"""The sockets' token buckets: they wait for a free Redis connection under a burst instead of
failing, are spent together or not at all, and once found empty refuse without Redis."""

from __future__ import annotations

import asyncio

import pytest
import redis
import redis.asyncio
from django.conf import settings
from redis.exceptions import MaxConnectionsError

from durak_site.backends import rate_limits, redis_pools

CHECKS = 300


@pytest.mark.asyncio
async def test_a_burst_of_checks_waits_for_a_free_connection(monkeypatch):
    # Hundreds of sockets opening at once each check their address's and cookie's buckets.
    monkeypatch.setattr(redis_pools, "POOL_CONNECTIONS", 4)
    taken = await asyncio.gather(
        *(rate_limits.take_async(f"burst-test-{n}", rate=1, burst=2) for n in range(CHECKS))
    )
    assert taken == [True] * CHECKS
    # Each bucket holds what is left of its burst: a second check takes the last token.
    again = await asyncio.gather(
        *(rate_limits.take_async(f"burst-test-{n}", rate=1, burst=2) for n in range(CHECKS))
    )
    assert again == [True] * CHECKS


@pytest.mark.asyncio
async def test_the_plain_pool_would_have_failed_under_the_same_burst():
    client = redis.asyncio.Redis.from_url(settings.REDIS_URL, max_connections=4)
    with pytest.raises(MaxConnectionsError):
        await asyncio.gather(*(client.eval("return 1", 0) for _ in range(CHECKS)))
    await client.aclose()


@pytest.mark.asyncio
async def test_a_message_spends_a_token_of_each_bucket_or_of_none():
    plenty = rate_limits.Bucket("all-or-none-plenty", 1, 5)
    scarce = rate_limits.Bucket("all-or-none-scarce", 0.001, 1)
    assert await rate_limits.take_all_async(plenty, scarce)
    # The scarce bucket is empty now: refused, and the plenty one keeps what it had.
    assert not await rate_limits.take_all_async(plenty, scarce)
    assert [await rate_limits.take_async(plenty.subject, rate=1, burst=5) for _ in range(5)] == [
        True,
        True,
        True,
        True,
        False,
    ]


def test_a_command_spends_a_token_of_each_bucket_or_of_none_and_learns_which_was_empty():
    plenty = rate_limits.Bucket("sync-all-or-none-plenty", 1, 5)
    scarce = rate_limits.Bucket("sync-all-or-none-scarce", 0.001, 1)
    assert rate_limits.take_all(plenty, scarce) == ()
    assert rate_limits.take_all(plenty, scarce) == (scarce,)
    # Refused, the plenty bucket kept what it had: four tokens.
    assert [rate_limits.take(plenty.subject, rate=1, burst=5) for _ in range(5)] == [
        True,
        True,
        True,
        True,
        False,
    ]


@pytest.mark.asyncio
async def test_a_bucket_found_empty_refuses_without_redis_until_it_refills():
    bucket = rate_limits.Bucket("refill-test", 1, 1)  # a token a second
    assert await rate_limits.take_all_async(bucket)
    assert not await rate_limits.take_all_async(bucket)
    # Had the process asked Redis, the bucket removed there would have given a token at once.
    redis.Redis.from_url(settings.REDIS_URL).delete(rate_limits.key(bucket.subject))
    assert not await rate_limits.take_all_async(bucket)
    await asyncio.sleep(1.05)
    assert await rate_limits.take_all_async(bucket)
