"""The table chat: messages kept with their game, quick phrases, mutes, reports and staff mutes.

Everyone at a table reads its chat (the messages go to the table's spectators' group, which
every socket there is in); only the players write. A player may mute another for himself; staff
mute a player in every chat for a while, from a report in their queue.
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from durak_site.accounts.models import Block
from durak_site.audit.services import record_staff_action
from durak_site.backends import rate_limits
from games import effects
from games.errors import GameError
from games.models import ChatBan, ChatMessage, ChatMute, ChatPhrase, ChatReport, Table
from games.selectors import tables
from games.services._locks import is_int

CHAT_MAX_CHARS = 200
# The latest messages of the current game that come with the table on (re)connect.
CHAT_HISTORY = 30
# Per user, over all his tables and sockets: a short burst, then one message every 2 seconds.
CHAT_RATE_PER_SECOND = 0.5
CHAT_BURST = 5
# The staff mute durations offered, in hours.
BAN_HOURS = (1, 24, 24 * 7, 24 * 30)


def chat_post(*, table_id: int, user, text: str = "", phrase: str = "") -> ChatMessage:
    """Write `text` (or a quick `phrase`) in the table's chat; everyone at the table gets it.

    Raises GameError and writes nothing when the message is empty, too long or an unknown
    phrase, when the user does not play at the table, when staff muted him, or when he writes
    faster than the rate allows.
    """
    text = _clean(text)
    if phrase:
        if phrase not in ChatPhrase.values or text:
            raise GameError("chat_unknown_phrase")
    elif not text:
        raise GameError("chat_empty")
    if len(text) > CHAT_MAX_CHARS:
        raise GameError("chat_too_long")
    table = _table(table_id)
    game = tables.table_current_game(table=table)
    if not tables.table_shows_player(table=table, user_id=user.pk, game=game):
        raise GameError("chat_spectator")
    until = chat_muted_until(user=user)
    if until is not None:
        told = _("Staff have muted you in the chat until {until}.")
        local = timezone.localtime(until)
        raise GameError("chat_muted", format_lazy(told, until=f"{local:%d.%m.%Y %H:%M %Z}"))
    if not rate_limits.take(f"chat:{user.pk}", rate=CHAT_RATE_PER_SECOND, burst=CHAT_BURST):
        raise GameError("chat_too_fast")
    with transaction.atomic():
        message = ChatMessage.objects.create(
            table=table, game=game, author=user, text=text, phrase=phrase
        )
        effects.send_chat(table_id=table.pk, author_id=user.pk, message=chat_entry(message))
    return message


# Control and format characters, and halves of surrogate pairs, which no text can store.
DROPPED_CATEGORIES = {"Cc", "Cf", "Cs"}
# Letters that draw nothing: the Hangul fillers and the blank Braille pattern.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _clean(text: str) -> str:
    """One line: whitespace runs become one space (first, so that a line break still parts two
    words), then control, format and surrogate characters go. Empty when nothing in it shows."""
    words = (
        "".join(char for char in word if unicodedata.category(char) not in DROPPED_CATEGORIES)
        for word in text.split()
    )
    line = " ".join(word for word in words if word)
    return line if any(_shows(char) for char in line) else ""


def _shows(char: str) -> bool:
    """A character that draws something by itself (a lone combining mark or a filler does not)."""
    return (
        not char.isspace()
        and char not in BLANK_LETTERS
        and unicodedata.category(char)[0] not in {"M", "Z"}
    )


def _table(table_id: Any) -> Table:
    table = Table.objects.filter(pk=table_id).first() if is_int(table_id) else None
    if table is None:
        raise GameError("table_not_found")
    return table


def chat_entry(message: ChatMessage) -> dict[str, Any]:
    """A message as the chat frames carry it (docs/protocol.md)."""
    return {
        "id": message.pk,
        "nickname": message.author.username,
        "text": message.text,
        "phrase": message.phrase,
        "at": message.created_at.isoformat(),
    }


def chat_muted_until(*, user) -> Any:
    """Until when staff muted the user in every chat, or None."""
    return (
        ChatBan.objects.filter(user_id=user.pk, until__gt=timezone.now())
        .order_by("-until")
        .values_list("until", flat=True)
        .first()
    )


def chat_muted_ids(*, user) -> set[int]:
    """The players whose messages the user does not want to read: those he muted in the chat
    and those he blocked (accounts.relations)."""
    muted = ChatMute.objects.filter(user_id=user.pk).values_list("muted_id", flat=True)
    blocked = Block.objects.filter(user_id=user.pk).values_list("blocked_id", flat=True)
    return set(muted.union(blocked))


def _muted_nicknames(user) -> list[str]:
    return sorted(
        ChatMute.objects.filter(user_id=user.pk).values_list("muted__username", flat=True)
    )


def chat_history(*, table_id: int, user) -> dict[str, Any]:
    """The chat frame sent on (re)connect: the current game's latest messages (without those of
    muted players), whom the user muted, and until when staff muted him; with ``muted_ids``
    for the socket, which is not sent."""
    table = _table(table_id)
    game = tables.table_current_game(table=table)
    muted_ids = chat_muted_ids(user=user)
    latest = (
        ChatMessage.objects.filter(table=table, game=game)
        .exclude(author__in=muted_ids)
        .select_related("author")
        .order_by("-id")[:CHAT_HISTORY]
    )
    until = chat_muted_until(user=user)
    return {
        "type": "chat_history",
        "table": table.pk,
        "messages": [chat_entry(message) for message in reversed(latest)],
        "muted": _muted_nicknames(user),
        "muted_until": until.isoformat() if until is not None else None,
        "muted_ids": sorted(muted_ids),
    }


def chat_mute(*, table_id: int, user, nickname: str, muted: bool) -> dict[str, Any]:
    """Mute (or unmute) a player at this table for the user, at every table from now on.

    Returns the frame that tells the user's sockets whom he mutes now.
    """
    table = _table(table_id)
    target = get_user_model().objects.filter(username=nickname).first()
    if target is None or not tables.table_shows_player(table=table, user_id=target.pk):
        raise GameError("chat_not_at_table")
    if target.pk == user.pk:
        raise GameError("chat_mute_self")
    if muted:
        ChatMute.objects.get_or_create(user=user, muted=target)
    else:
        ChatMute.objects.filter(user=user, muted=target).delete()
    return chat_mutes_frame(user=user)


def chat_mutes_frame(*, user) -> dict[str, Any]:
    """The frame that tells the user's sockets whom he mutes now (by nickname) and whose
    messages they drop (by id: the muted and the blocked)."""
    return {
        "type": "chat_mutes",
        "muted": _muted_nicknames(user),
        "muted_ids": sorted(chat_muted_ids(user=user)),
    }


def chat_report(*, table_id: int, user, message_id: Any) -> ChatReport:
    """Put a message of this table's chat in the staff queue; a second report of the same
    message by the same user changes nothing."""
    message = (
        ChatMessage.objects.filter(pk=message_id, table_id=table_id).first()
        if is_int(message_id) and is_int(table_id)
        else None
    )
    if message is None:
        raise GameError("chat_message_not_found")
    if message.author_id == user.pk:
        raise GameError("chat_report_own")
    report, _created = ChatReport.objects.get_or_create(message=message, reporter=user)
    return report


def chat_ban(*, staff, report_id: int, hours: int, reason: str) -> ChatBan:
    """Staff mute the author of a reported message in every chat for `hours`; the report is
    handled, and the staff audit trail records who did it and why."""
    if hours not in BAN_HOURS:
        raise ValueError(f"no such mute duration: {hours}")
    with transaction.atomic():
        report = (
            ChatReport.objects.select_for_update()
            .select_related("message__author")
            .get(pk=report_id)
        )
        author = report.message.author
        now = timezone.now()
        ban = ChatBan.objects.create(
            user=author,
            until=now + timedelta(hours=hours),
            reason=reason,
            staff=staff,
            report=report,
        )
        record_staff_action(
            staff=staff,
            action="games.chat_mute",
            reason=reason,
            target=ban,
            player=author,
            details={"hours": hours, "until": ban.until.isoformat(), "report": report.pk},
        )
        report.status, report.handled_by, report.handled_at = ChatReport.Status.MUTED, staff, now
        report.save(update_fields=["status", "handled_by", "handled_at"])
    return ban


def chat_reports_dismiss(*, staff, report_ids: list[int]) -> int:
    """Staff found nothing wrong with these open reports; how many were dismissed."""
    return ChatReport.objects.filter(pk__in=report_ids, status=ChatReport.Status.OPEN).update(
        status=ChatReport.Status.DISMISSED, handled_by=staff, handled_at=timezone.now()
    )
