"""What leaves the process after a tournament command commits: live standings to the
tournament's sockets, the start's notice, and a prompt run of the tournament's clock."""

from __future__ import annotations

from dataclasses import dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from durak_site.celery import app as celery_app

TICK_TASK = "tournaments.tasks.tick"


def group(tournament_id: int) -> str:
    """The sockets watching one tournament (its page, its players' lobby)."""
    return f"tournaments.{tournament_id}"


@dataclass(frozen=True)
class StandingsChanged:
    tournament_id: int

    def __call__(self) -> None:
        # The sockets read the standings themselves: one read per socket is cheaper than
        # sending a whole table of standings to every socket after every game.
        async_to_sync(get_channel_layer().group_send)(
            group(self.tournament_id),
            {"type": "tournament.changed", "tournament": self.tournament_id},
        )


@dataclass(frozen=True)
class Started:
    tournament_id: int
    user_ids: tuple[int, ...]

    def __call__(self) -> None:
        async_to_sync(get_channel_layer().group_send)(
            group(self.tournament_id),
            {"type": "tournament.started", "tournament": self.tournament_id},
        )


@dataclass(frozen=True)
class TickSoon:
    tournament_id: int

    def __call__(self) -> None:
        celery_app.send_task(TICK_TASK, kwargs={"tournament_id": self.tournament_id})


def standings_changed(tournament_id: int) -> None:
    transaction.on_commit(StandingsChanged(tournament_id))


def tournament_started(tournament_id: int, user_ids: list[int]) -> None:
    transaction.on_commit(Started(tournament_id, tuple(user_ids)))


def tick_soon(tournament_id: int) -> None:
    transaction.on_commit(TickSoon(tournament_id))
