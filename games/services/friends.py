"""Friends at the tables: inviting a friend to one's table, and blocks as the sockets see them.

The relations themselves (requests, friendships, blocks, notes) are ``accounts.relations``;
here is what reaches a table or a socket. An invitation is a notice on every open socket of the
friend (lobby and tables, through his user group) and a push to his devices.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from durak_site.accounts import relations
from durak_site.accounts.relations import RelationError
from durak_site.backends import rate_limits
from games import effects
from games.errors import GameError
from games.models import Table
from games.services import notices
from games.services._locks import active_seats, is_int
from games.services.chat import chat_mutes_frame

# Invitations per player: a burst, then 30 an hour; and one a minute to the same friend.
INVITES_BURST = 5.0
INVITES_PER_SECOND = 30 / 3600
INVITE_REPEAT_SECONDS = 60
# How long an invitation's push waits for a device that is offline.
INVITE_PUSH_SECONDS = 10 * 60


def friend_invite(*, user, nickname: Any, table_id: Any) -> None:
    """Invite a friend to the open table the user sits at. Raises GameError and sends nothing
    when he is no friend (or either blocked the other), the table takes nobody now, the friend
    sits there already, or the user invites too often."""
    try:
        friend = relations.player_named(nickname, viewer=user)
    except RelationError as error:
        raise GameError(error.code, error.message) from None
    if not relations.are_friends(user.pk, friend.pk) or relations.blocked_between(
        user.pk, friend.pk
    ):
        raise GameError("invite_not_friend")
    table = Table.objects.filter(pk=table_id).first() if is_int(table_id) else None
    if table is None or table.practice:
        raise GameError("table_not_found")
    seated = set(active_seats(table).values_list("user_id", flat=True))
    if user.pk not in seated:
        raise GameError("not_seated")
    if table.status != Table.Status.OPEN:
        raise GameError("table_not_open")
    if friend.pk in seated:
        raise GameError("invite_already_seated")
    if len(seated) >= table.seat_count:
        raise GameError("table_full")
    again = rate_limits.Bucket(
        f"invite:{user.pk}:{friend.pk}:{table.pk}", 1 / INVITE_REPEAT_SECONDS, 1
    )
    empty = rate_limits.take_all(
        again, rate_limits.Bucket(f"invites:{user.pk}", INVITES_PER_SECOND, INVITES_BURST)
    )
    if empty:
        raise GameError("invite_repeated" if again in empty else "invite_too_fast")
    invitation = {
        "from": user.username,
        "table": table.pk,
        "stake": table.stake,
        "seats": table.seat_count,
        "invite_code": table.invite_code,
    }
    with transaction.atomic():
        effects.tell_user(user_id=friend.pk, body={"type": "friend.invite", "invite": invitation})
        effects.notify_players(
            table=table,
            user_ids=[friend.pk],
            kind=notices.INVITE,
            until=timezone.now() + timedelta(seconds=INVITE_PUSH_SECONDS),
            nickname=user.username,
            invite=table.invite_code,
        )


def player_block(*, user, nickname: Any) -> None:
    """Block a player (``relations.block``); the user's open tables drop his chat at once."""
    with transaction.atomic():
        relations.block(user=user, nickname=nickname)
        effects.tell_user(
            user_id=user.pk, body={**chat_mutes_frame(user=user), "type": "chat.mutes"}
        )


def player_unblock(*, user, nickname: Any) -> None:
    """Unblock a player; the user's open tables show his chat again."""
    with transaction.atomic():
        relations.unblock(user=user, nickname=nickname)
        effects.tell_user(
            user_id=user.pk, body={**chat_mutes_frame(user=user), "type": "chat.mutes"}
        )
