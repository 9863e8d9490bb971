"""The friends page and the relation a player card shows: who is whose friend, who is online
and at which table, the requests both ways, the blocked."""

from __future__ import annotations

from django.db.models import Count, F, Q

from durak_site.accounts.models import Block, Friendship
from games import presence
from games.models import Seat, Table

LIVE = [Table.Status.OPEN, Table.Status.PLAYING]


def friends_overview(*, user) -> dict:
    """Everything the friends page shows, in four statements and one Redis round trip."""
    rows = Friendship.objects.filter(Q(from_user=user) | Q(to_user=user)).select_related(
        "from_user", "to_user"
    )
    friends, incoming, outgoing = [], [], []
    for row in rows:
        other = row.to_user if row.from_user_id == user.pk else row.from_user
        entry = {"id": row.pk, "nickname": other.username, "user_id": other.pk}
        if row.status == Friendship.Status.ACCEPTED:
            friends.append(entry)
        elif row.to_user_id == user.pk:
            incoming.append(entry)
        else:
            outgoing.append(entry)
    friend_ids = [entry["user_id"] for entry in friends]
    online = presence.online(friend_ids) if friend_ids else set()
    seats = Seat.objects.filter(
        user_id__in=friend_ids, left_at__isnull=True, table__status__in=LIVE
    ).values_list("user_id", "table_id", "table__private", "table__practice")
    # A private table's page needs its code: a friend there shows as playing, without a link.
    at_table = {
        user_id: {"id": table_id, "private": private}
        for user_id, table_id, private, practice in seats
        if not practice
    }
    for entry in friends:
        entry["online"] = entry["user_id"] in online
        entry["table"] = at_table.get(entry["user_id"])
    friends.sort(key=lambda entry: (not entry["online"], entry["nickname"].lower()))
    return {
        "friends": friends,
        "incoming": incoming,
        "outgoing": outgoing,
        "blocked": list(
            Block.objects.filter(user=user)
            .order_by("blocked__username")
            .values_list("blocked__username", flat=True)
        ),
        "inviting_tables": inviting_tables(user=user),
    }


def inviting_tables(*, user) -> list[Table]:
    """The open tables with stakes the user sits at that have a free seat: he may invite there."""
    return list(
        Table.objects.filter(
            pk__in=Seat.objects.filter(user=user, left_at__isnull=True).values("table_id"),
            status=Table.Status.OPEN,
            practice=False,
        )
        .annotate(taken=Count("seat_set", filter=Q(seat_set__left_at__isnull=True)))
        .filter(taken__lt=F("seat_count"))
        .order_by("-created_at")
    )


def relation_to(*, viewer, player_id: int) -> str | None:
    """How the viewer stands with a player: "friend", "asked" (he asked him), "asked_you",
    "blocked" (he blocked him), or None."""
    if not viewer.is_authenticated or viewer.pk == player_id:
        return None
    if Block.objects.filter(user=viewer, blocked_id=player_id).exists():
        return "blocked"
    row = (
        Friendship.objects.filter(
            Q(from_user=viewer, to_user_id=player_id) | Q(from_user_id=player_id, to_user=viewer)
        )
        .values_list("status", "from_user_id")
        .first()
    )
    if row is None:
        return None
    status, asker = row
    if status == Friendship.Status.ACCEPTED:
        return "friend"
    return "asked" if asker == viewer.pk else "asked_you"
