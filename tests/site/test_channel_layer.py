"""The channel layer's Redis pool makes a burst wait for connections instead of failing, it
sends to many groups at once as to each in turn, and one reader per process hands out what
Redis holds for the process's sockets."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer as PlainLayer
from django.conf import settings
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MaxConnectionsError

from durak_site.backends import redis_pools
from durak_site.sockets import channel_layer

SOCKETS = 300


async def close_all_at_once(layer) -> None:
    """Every socket of a table leaves its group at the same moment, as when a process stops."""
    group = "burst-test"
    channels = [f"burst-test.{number}" for number in range(SOCKETS)]
    await asyncio.gather(*(layer.group_add(group, name) for name in channels))
    await asyncio.gather(*(layer.group_discard(group, name) for name in channels))


def layer_config() -> dict:
    return settings.CHANNEL_LAYERS["default"]["CONFIG"]


async def received(receiver, channel: str, count: int) -> list[int]:
    async with asyncio.timeout(5):
        return [(await receiver.receive(channel))["n"] for _ in range(count)]


@pytest.mark.asyncio
async def test_a_burst_of_group_changes_waits_for_a_free_connection(monkeypatch):
    monkeypatch.setattr(redis_pools, "POOL_CONNECTIONS", 4)
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


@pytest.mark.skipif(settings.CHANNEL_LAYER != "fork", reason="CHANNEL_LAYER chose another layer")
def test_the_site_uses_the_waiting_pool():
    assert isinstance(get_channel_layer(), channel_layer.RedisChannelLayer)


@pytest.mark.asyncio
async def test_a_send_to_many_groups_reaches_every_member_in_order_in_one_message_a_process():
    sender = channel_layer.RedisChannelLayer(**layer_config())
    layer = channel_layer.RedisChannelLayer(**layer_config())
    # Two sockets of one process (their messages share one Redis list) and one of another.
    here = await layer.new_channel()
    also_here = await layer.new_channel()
    other_process = channel_layer.RedisChannelLayer(**layer_config())
    elsewhere = await other_process.new_channel()
    await layer.group_add("many-test.seat-a", here)
    await layer.group_add("many-test.seat-b", also_here)
    await layer.group_add("many-test.watch", here)
    await layer.group_add("many-test.watch", elsewhere)
    await sender.group_send_many(
        [
            ("many-test.seat-a", {"type": "state", "n": 1}),
            ("many-test.seat-b", {"type": "state", "n": 2}),
            ("many-test.watch", {"type": "state", "n": 3}),
            ("many-test.seat-a", {"type": "state", "n": 4}),
            ("many-test.empty", {"type": "state", "n": 5}),
        ]
    )

    # Each process has one message waiting, whatever the number of its sockets' states.
    for receiver, channel in ((layer, here), (other_process, elsewhere)):
        process_list = receiver.prefix + receiver.non_local_name(channel)
        assert await receiver.connection(0).zcard(process_list) == 1

    assert await received(layer, here, 3) == [1, 3, 4]
    assert await received(layer, also_here, 1) == [2]
    assert await received(other_process, elsewhere, 1) == [3]
    for receiver, channel in ((layer, here), (layer, also_here), (other_process, elsewhere)):
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                await receiver.receive(channel)


@pytest.mark.asyncio
async def test_a_process_hands_its_own_sockets_their_messages_without_redis():
    layer = channel_layer.RedisChannelLayer(**layer_config())
    other_process = channel_layer.RedisChannelLayer(**layer_config())
    here, also_here = await layer.new_channel(), await layer.new_channel()
    elsewhere = await other_process.new_channel()
    for channel, receiver in ((here, layer), (also_here, layer), (elsewhere, other_process)):
        await receiver.group_add("local-test.watch", channel)
    waiting = asyncio.ensure_future(received(layer, here, 2))
    await asyncio.sleep(0)  # the socket waits: its process receives
    await layer.group_send_many(
        [("local-test.watch", {"type": "state", "n": 1}), ("local-test.watch", {"n": 2})]
    )
    own_list = layer.prefix + layer.non_local_name(here)
    other_list = other_process.prefix + other_process.non_local_name(elsewhere)
    assert await layer.connection(0).zcard(own_list) == 0
    assert await layer.connection(0).zcard(other_list) == 1
    assert await waiting == [1, 2]
    assert await received(layer, also_here, 2) == [1, 2]
    assert await received(other_process, elsewhere, 2) == [1, 2]


@pytest.mark.asyncio
async def test_a_receive_given_up_loses_no_message_and_one_read_takes_all_waiting():
    layer = channel_layer.RedisChannelLayer(**layer_config())
    sender = channel_layer.RedisChannelLayer(**layer_config())
    channel = await layer.new_channel()
    await layer.group_add("cancel-test", channel)
    given_up = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0)  # the socket waits: its process reads
    given_up.cancel()
    for number in range(1, 4):
        await sender.group_send("cancel-test", {"type": "state", "n": number})
    assert await received(layer, channel, 3) == [1, 2, 3]
    process_list = layer.prefix + layer.non_local_name(channel)
    assert await layer.connection(0).zcard(process_list) == 0


@pytest.mark.asyncio
async def test_a_failed_read_reaches_the_waiting_sockets():
    layer = channel_layer.RedisChannelLayer(
        **{**layer_config(), "hosts": [{"address": "redis://127.0.0.1:1"}]}
    )
    channel = await layer.new_channel()
    with pytest.raises(RedisConnectionError):
        await received(layer, channel, 1)


def test_messages_no_socket_asks_for_are_dropped_after_the_expiry(monkeypatch):
    layer = channel_layer.RedisChannelLayer(**layer_config())
    now = [1000.0]
    monkeypatch.setattr(channel_layer.time, "monotonic", lambda: now[0])
    inbox = channel_layer.Inbox(layer, asyncio.new_event_loop(), "specific.test!")
    inbox.put(["gone!a", "alive!b"], {"n": 1})
    now[0] += layer.expiry / 2
    inbox.asked["alive!b"] = now[0]  # its socket read in the meantime
    now[0] += layer.expiry / 2 + 1
    inbox.sweep()
    assert "gone!a" not in inbox.held and list(inbox.held["alive!b"]) == [{"n": 1}]
    inbox.loop.close()
