"""What leaves the process after a command commits: broadcasts and timers.

The only caller of ``transaction.on_commit`` in the games: a command that rolls back announces
nothing and schedules nothing. Each effect is a small value, so what a command will do on commit
can be compared in tests. Tasks are sent by name, so the services never import the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from durak_site.celery import app as celery_app
from games import selectors
from games.models import Table

DEADLINE_TASK = "games.tasks.game_deadline"
AWAY_CHECK_TASK = "games.tasks.seat_away_check"


@dataclass(frozen=True)
class Announcement:
    """Tell the table's sockets to refresh to ``version``, and the lobby about the table."""

    table_id: int
    version: int
    lobby: bool

    def __call__(self) -> None:
        layer = get_channel_layer()
        async_to_sync(layer.group_send)(
            selectors.table_group(self.table_id), {"type": "table.changed", "version": self.version}
        )
        if self.lobby:
            entry = selectors.table_lobby_entry(table_id=self.table_id)
            message = (
                {"type": "lobby.table", "table": entry}
                if entry is not None
                else {"type": "lobby.removed", "id": self.table_id}
            )
            async_to_sync(layer.group_send)(selectors.LOBBY_GROUP, message)


@dataclass(frozen=True)
class Deadline:
    """Act for the idle seats at ``eta`` if the game is still at ``version``."""

    game_id: int
    version: int
    eta: datetime

    def __call__(self) -> None:
        celery_app.send_task(DEADLINE_TASK, args=(self.game_id, self.version), eta=self.eta)


@dataclass(frozen=True)
class AwayCheck:
    """Mark the seat away after ``countdown`` seconds if it is still disconnected."""

    seat_id: int
    countdown: float

    def __call__(self) -> None:
        celery_app.send_task(AWAY_CHECK_TASK, args=(self.seat_id,), countdown=self.countdown)


def announce(*, table: Table, version: int, lobby: bool = True) -> None:
    # Private tables never reach the lobby.
    transaction.on_commit(Announcement(table.pk, version, lobby and not table.private))


def schedule_deadline(*, game_id: int, version: int, eta: datetime) -> None:
    transaction.on_commit(Deadline(game_id, version, eta))


def schedule_away_check(*, seat_id: int, countdown: float) -> None:
    transaction.on_commit(AwayCheck(seat_id, countdown))
