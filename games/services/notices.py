"""Pushes to players about their tables: their move, their table starting, a rematch offered,
a friend's invitation.

Sent by a task after the command that caused them has committed (``games.effects``), and only
to players with no page of the table in front of them (``presence.watching``). Each table has
one topic, so a newer push about it replaces the older one.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from durak_site.push import services as push
from games import presence

TURN = "turn"
START = "start"
REMATCH = "rematch"
INVITE = "invite"
_WORDS = {
    TURN: (_("Your move"), _("Table #%(table)s is waiting for your move.")),
    START: (_("Your table is starting"), _("The cards are dealt at table #%(table)s.")),
    REMATCH: (_("A rematch is offered"), _("%(nickname)s offers a rematch at table #%(table)s.")),
    INVITE: (_("An invitation"), _("%(nickname)s invites you to table #%(table)s.")),
}


def table_topic(table_id: int) -> str:
    """The push topic and notification tag of a table (the table page's own notification uses
    the same tag, so the two replace each other)."""
    return f"durak-table-{table_id}"


def players_notify(
    *, table_id: int, user_ids: list[int], kind: str, expires_at: float, params: dict
) -> int:
    """Push `kind` about the table to those of the users who do not see it; the number of
    devices reached."""
    unseen = set(user_ids) - presence.watching(table_id, user_ids)
    if not unseen:
        return 0
    title, body = _WORDS[kind]
    notice = push.Notice(
        title=title,
        body=body,
        url=_table_url(table_id, params.get("invite", "")),
        topic=table_topic(table_id),
        expires_at=expires_at,
        params={**params, "table": table_id},
    )
    return push.notify(user_ids=unseen, notice=notice)


def _table_url(table_id: int, invite_code: str) -> str:
    """The table's page; a private table's with the code that shows it (an invitation)."""
    url = reverse("table_detail", args=[table_id])
    return f"{url}?{urlencode({'invite': invite_code})}" if invite_code else url
