"""The periodic sweeper: whatever a lost timer or a dead process left undone."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Max, Q
from django.utils import timezone

from games import clocks, deadlines, metrics
from games.models import Table
from games.services.away import seats_mark_disconnected
from games.services.practice import practices_close_deserted
from games.services.rematch import rematch_expire
from games.services.tables import open_cutoff, table_expire

# The sweeper leaves a just-passed deadline to the deadline loop for this long.
SWEEP_GRACE = timedelta(seconds=1)


def games_sweep() -> int:
    """Catch up on everything whose timer may have been lost, close abandoned open tables, and
    end the practice games their player left; returns the actions taken."""
    now = timezone.now()
    caught_up = dict.fromkeys(("deadline", "practice", "rematch", "table"), 0)
    if clocks.running():  # else no game's clock runs (games.clocks), nor a rematch's
        caught_up["deadline"] = deadlines.fire_due(before=SWEEP_GRACE)
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
