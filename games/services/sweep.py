"""The periodic sweeper: whatever a lost timer or a dead process left undone."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import F, Max, Q
from django.utils import timezone

from games import clocks, deadlines
from games.models import Seat, Table
from games.services.away import seat_mark_away, seats_mark_disconnected
from games.services.rematch import rematch_expire
from games.services.tables import open_cutoff, table_expire

# The sweeper leaves a just-passed deadline to the deadline loop for this long.
SWEEP_GRACE = timedelta(seconds=1)


def games_sweep() -> int:
    """Catch up on everything whose timer may have been lost, and close abandoned open tables;
    returns the actions taken."""
    now = timezone.now()
    done = 0
    if clocks.running():  # else no game's clock runs (games.clocks), nor a rematch's
        done += deadlines.fire_due(before=SWEEP_GRACE)
        seats_mark_disconnected()
        done += _mark_gone_away(now)
        expired = Table.objects.filter(
            status=Table.Status.CLOSED,
            seat_set__left_at__isnull=True,
            games__rematch_until__lte=now,
        ).values_list("pk", flat=True)
        for table_id in set(expired):
            done += rematch_expire(table_id=table_id)
    abandoned = (
        Table.objects.filter(status=Table.Status.OPEN)
        .annotate(newest=Max("seat_set__joined_at", filter=Q(seat_set__left_at__isnull=True)))
        .filter(Q(newest__lte=open_cutoff()) | Q(newest__isnull=True))
        .values_list("pk", flat=True)
    )
    for table_id in abandoned:
        done += table_expire(table_id=table_id)
    return done


def _mark_gone_away(now: datetime) -> int:
    """Mark away the players disconnected for longer than their table's turn time: only those
    are locked and checked, so a crowd that just dropped costs one query."""
    gone = Seat.objects.filter(
        left_at__isnull=True,
        away=False,
        disconnected_at__isnull=False,
        table__status=Table.Status.PLAYING,
        disconnected_at__lte=now - F("table__turn_seconds") * timedelta(seconds=1),
    ).values_list("pk", flat=True)
    return sum(seat_mark_away(seat_id=seat_id) for seat_id in gone)
