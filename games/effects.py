"""What leaves the process after a command commits: the table's states and timers.

The only caller of ``transaction.on_commit`` in the games: a command that rolls back announces
nothing and schedules nothing. Each effect is a small value, so what a command will do on commit
can be compared in tests. Tasks are sent by name, so the services never import the tasks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction

from durak_site.backends.batched_tasks import BatchedTask
from durak_site.celery import app as celery_app
from durak_site.push import services as push
from durak_site.sockets import session_closes
from games import broadcast, presence
from games.models import Table
from games.selectors import lobby, tables

BOT_MOVE_TASK = "games.tasks.bot_move"
NOTICE_TASK = "games.tasks.notify_players"
ANALYSIS_TASK = "games.tasks.analyse_game"
# Pushes leave a move's thread without a round trip to the broker
# (durak_site.backends.batched_tasks).
_notices = BatchedTask(NOTICE_TASK)


def _lobby_message(table_id: int) -> broadcast.Message:
    entry = lobby.table_lobby_entry(table_id=table_id)
    body = (
        {"type": "lobby.table", "table": entry}
        if entry is not None
        else {"type": "lobby.removed", "id": table_id}
    )
    return broadcast.Message(lobby.LOBBY_GROUP, body)


@dataclass(frozen=True)
class Publication:
    """Send the table's states after the moves of a command, built from what it holds."""

    snapshot: tables.TableSnapshot
    events: tuple[dict, ...]
    events_from: int
    lobby: bool

    def __call__(self) -> None:
        messages = broadcast.table_messages(
            self.snapshot,
            events=list(self.events),
            events_from=self.events_from,
            at=broadcast.stamp(),
        )
        if self.lobby:
            messages.append(_lobby_message(self.snapshot.table.pk))
        broadcast.deliver(messages)


@dataclass(frozen=True)
class Announcement:
    """Send the table's states after a change that made no move (read once for everyone),
    and tell the lobby about the table."""

    table_id: int
    lobby: bool

    def __call__(self) -> None:
        at = broadcast.stamp()  # before the read: a later key never holds older data
        snapshot = tables.table_snapshot_read(self.table_id)
        if snapshot is None:
            return
        version = snapshot.game.version if snapshot.game is not None else 0
        messages = broadcast.table_messages(snapshot, events=[], events_from=version, at=at)
        if self.lobby:
            messages.append(_lobby_message(self.table_id))
        broadcast.deliver(messages)


@dataclass(frozen=True)
class BotMove:
    """Play a bot's move after ``countdown`` seconds if the game is still at ``version``."""

    game_id: int
    version: int
    countdown: float

    def __call__(self) -> None:
        celery_app.send_task(
            BOT_MOVE_TASK, args=(self.game_id, self.version), countdown=self.countdown
        )


@dataclass(frozen=True)
class AnalysisRun:
    """Judge a player's decisions in a finished game (``games.services.analysis``)."""

    analysis_id: int

    def __call__(self) -> None:
        celery_app.send_task(ANALYSIS_TASK, args=(self.analysis_id,))


@dataclass(frozen=True)
class ChatDelivery:
    """Send a chat message to every socket at its table; each drops it if its user muted the
    author."""

    table_id: int
    author_id: int
    message: dict

    def __call__(self) -> None:
        body = {"type": "table.chat", "author": self.author_id, "message": self.message}
        processes = presence.table_processes(self.table_id)
        broadcast.deliver(
            [broadcast.Message(broadcast.watch_group(self.table_id), body, processes)]
        )


@dataclass(frozen=True)
class UserNotice:
    """An event for every open socket of one user, lobby and tables, on every process."""

    user_id: int
    body: dict

    def __call__(self) -> None:
        broadcast.deliver([broadcast.Message(session_closes.user_group(self.user_id), self.body)])


@dataclass(frozen=True)
class PlayerNotice:
    """Push a notice of ``kind`` about the table to those of the users who do not see it
    (``games.services.notices``), from a task that carries the notices queued with it and is
    dropped once they have all expired."""

    table_id: int
    user_ids: tuple[int, ...]
    kind: str
    expires_at: float
    params: tuple[tuple[str, str], ...] = ()

    @property
    def task_item(self) -> tuple:
        return (self.table_id, [*self.user_ids], self.kind, self.expires_at, dict(self.params))

    def __call__(self) -> None:
        _notices.put(self.task_item, expires_at=self.expires_at)


def publish(
    snapshot: tables.TableSnapshot, *, events: list[dict], events_from: int, lobby: bool
) -> None:
    transaction.on_commit(Publication(snapshot, tuple(events), events_from, lobby))


def announce(*, table: Table, lobby: bool = True) -> None:
    # Private tables never reach the lobby.
    transaction.on_commit(Announcement(table.pk, lobby and not table.private))


def schedule_bot_move(*, game_id: int, version: int) -> None:
    transaction.on_commit(BotMove(game_id, version, random.uniform(*settings.BOT_DELAY_SECONDS)))


def schedule_analysis(*, analysis_id: int) -> None:
    transaction.on_commit(AnalysisRun(analysis_id))


def send_chat(*, table_id: int, author_id: int, message: dict) -> None:
    transaction.on_commit(ChatDelivery(table_id, author_id, message))


def tell_user(*, user_id: int, body: dict) -> None:
    """Send `body` (a channel-layer event) to every open socket of the user."""
    transaction.on_commit(UserNotice(user_id, body))


def notify_players(
    *, table: Table, user_ids: list[int], kind: str, until: datetime | None, **params: str
) -> None:
    """Push `kind` to the users who do not see the table, until `until`. Practice tables push
    nothing, and nothing is queued while push is off."""
    if user_ids and until is not None and not table.practice and push.push_enabled():
        transaction.on_commit(
            PlayerNotice(table.pk, tuple(user_ids), kind, until.timestamp(), tuple(params.items()))
        )
