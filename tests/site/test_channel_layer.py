"""The channel layer's Redis pool makes a burst wait for connections instead of failing."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer as PlainLayer
from django.conf import settings
from redis.exceptions import MaxConnectionsError

from durak_site import channel_layer

SOCKETS = 300


async def close_all_at_once(layer) -> None:
    """Every socket of a table leaves its group at the same moment, as when a process stops."""
    group = "burst-test"
    channels = [f"burst-test.{number}" for number in range(SOCKETS)]
    await asyncio.gather(*(layer.group_add(group, name) for name in channels))
    await asyncio.gather(*(layer.group_discard(group, name) for name in channels))


def layer_config() -> dict:
    return settings.CHANNEL_LAYERS["default"]["CONFIG"]


@pytest.mark.asyncio
async def test_a_burst_of_group_changes_waits_for_a_free_connection(monkeypatch):
    monkeypatch.setattr(channel_layer, "POOL_CONNECTIONS", 4)
    layer = channel_layer.RedisChannelLayer(**layer_config())
    await close_all_at_once(layer)  # raises nothing
    assert await layer.connection(0).zcard(layer._group_key("burst-test")) == 0


@pytest.mark.asyncio
async def test_the_plain_pool_would_have_failed_under_the_same_burst(monkeypatch):
    config = layer_config()
    hosts = [{**host, "max_connections": 4} for host in config["hosts"]]
    layer = PlainLayer(**{**config, "hosts": hosts})
    with pytest.raises(MaxConnectionsError):
        await close_all_at_once(layer)


def test_the_site_uses_the_waiting_pool():
    assert isinstance(get_channel_layer(), channel_layer.RedisChannelLayer)
