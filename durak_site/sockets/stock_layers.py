"""channels-redis's own layers as they ship, the standard alternative to ``channel_layer``
(``CHANNEL_LAYER=stock`` or ``pubsub``): the one call the table broadcasts make beyond
Channels' interface, ``group_send_many``, is each group's ``group_send`` in turn."""

from __future__ import annotations

from channels_redis import core, pubsub


class GroupSendsInTurn:
    async def group_send_many(self, sends: list[tuple[str, dict]]) -> None:
        """Send each (group, message) with ``group_send``, in their order."""
        for group, message in sends:
            await self.group_send(group, message)


class RedisChannelLayer(GroupSendsInTurn, core.RedisChannelLayer):
    pass


class RedisPubSubChannelLayer(GroupSendsInTurn, pubsub.RedisPubSubChannelLayer):
    pass
