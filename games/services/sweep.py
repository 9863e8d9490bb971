"""Deadlines that passed, fired for the deadline loop (``games.deadlines``, which only runs them),
and the periodic sweeper: whatever a lost timer or a dead process left undone."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db.models import Max, Q
from django.utils import timezone

from durak_site.ops import json_logs as site_logging
from games import metrics
from games.models import Game, Table
from games.services import clocks
from games.services.away import seats_mark_disconnected
from games.services.play import game_timeout
from games.services.practice import practices_close_deserted
from games.services.rematch import rematch_expire
from games.services.tables import open_cutoff, table_expire

# The sweeper leaves a just-passed deadline to the deadline loop for this long.
SWEEP_GRACE = timedelta(seconds=1)
# Due games fired per round; the rest follow in the next round.
BATCH = 100
logger = logging.getLogger(__name__)


def deadlines_due(now: datetime, limit: int = BATCH) -> list[tuple[int, int, datetime]]:
    """(game id, version, deadline) of playing games whose deadline has passed, the oldest
    first; none while an outage noted in PostgreSQL waits to be made up for."""
    return list(
        Game.objects.filter(status=Game.Status.PLAYING, deadline__lte=now)
        .filter(~clocks.noted_in_database())
        .order_by("deadline")
        .values_list("pk", "version", "deadline")[:limit]
    )


def deadline_next() -> datetime | None:
    """The soonest deadline of a playing game, None when no game waits for one."""
    return (
        Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False)
        .order_by("deadline")
        .values_list("deadline", flat=True)
        .first()
    )


def deadlines_fire(*, before: timedelta = timedelta(0)) -> int:
    """Act on up to ``BATCH`` games whose deadline passed more than `before` ago, while the
    web tier was serving.

    Returns how many were acted on. One game's failure is logged and leaves the others firing.
    """
    served_until = clocks.served_until()
    if served_until is None:
        return 0
    fired = 0
    for game_id, version, deadline in deadlines_due(min(timezone.now() - before, served_until)):
        with site_logging.bound_to(game=game_id, version=version):
            try:
                acted = game_timeout(game_id=game_id, version=version)
            except Exception:
                logger.exception("the deadline of game %s failed", game_id)
                continue
        if acted:
            fired += 1
            metrics.DEADLINE_LATENESS.observe((timezone.now() - deadline).total_seconds())
            metrics.MOVES.labels("server").inc()
    return fired


def games_sweep() -> int:
    """Catch up on everything whose timer may have been lost, close abandoned open tables, and
    end the practice games their player left; returns the actions taken."""
    now = timezone.now()
    caught_up = dict.fromkeys(("deadline", "practice", "rematch", "table"), 0)
    if clocks.running():  # else no game's clock runs (games.services.clocks), nor a rematch's
        caught_up["deadline"] = deadlines_fire(before=SWEEP_GRACE)
        seats_mark_disconnected()
        caught_up["practice"] = practices_close_deserted()
        expired = Table.objects.filter(
            status=Table.Status.CLOSED,
            seat_set__left_at__isnull=True,
            games__rematch_until__lte=now,
        ).values_list("pk", flat=True)
        for table_id in set(expired):
            caught_up["rematch"] += rematch_expire(table_id=table_id)
    abandoned = (
        Table.objects.filter(status=Table.Status.OPEN)
        .annotate(newest=Max("seat_set__joined_at", filter=Q(seat_set__left_at__isnull=True)))
        .filter(Q(newest__lte=open_cutoff()) | Q(newest__isnull=True))
        .values_list("pk", flat=True)
    )
    for table_id in abandoned:
        caught_up["table"] += table_expire(table_id=table_id)
    for kind, count in caught_up.items():
        metrics.sweeper_caught_up(kind, count)
    return sum(caught_up.values())
