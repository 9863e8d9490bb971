"""When the games' clocks run: not while no player can reach the site (the web tier is down).

Every Daphne process beats (``durak_site.heartbeats``). A deadline fires only if it passed
while a web process was alive, and no practice game is ended for its absent player while none
is. The deadline loop notes since when the web has been silent; the first loop to see a web
process again pushes every playing game's deadline, and the time since when each disconnected
player has had no socket, back by the length of the outage, and sends each of those tables its
state with the new deadline. An open rematch's window moves back the same way, and no rematch
lapses while the web is down.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Least
from django.utils import timezone

from durak_site import heartbeats
from games import effects, presence
from games.models import Game, Seat, Table

# A note of an outage that no loop has watched for this long is dropped.
WATCH_SECONDS = 60
logger = logging.getLogger(__name__)


def outage_key() -> str:
    return cache.make_key("games:web-outage-since")


def _web_down(last_beat: float | None, now: float) -> bool:
    return last_beat is None or now - last_beat > heartbeats.ALIVE_SECONDS


def served_until() -> datetime | None:
    """The latest deadline that may fire now: one that passed while the web was alive (up to a
    beat after its last one). None while no web process is alive."""
    last, now = heartbeats.last_beat(heartbeats.WEB), time.time()
    if _web_down(last, now):
        return None
    return datetime.fromtimestamp(min(now, last + 2 * heartbeats.BEAT_SECONDS), tz=UTC)


def web_is_serving() -> bool:
    return served_until() is not None


def watch() -> bool:
    """Note an outage of the web tier, or end the one noted; whether the web is serving.

    The deadline loop calls this every round. The note holds when the outage began and when a
    loop last saw it go on: an outage counts only as long as a loop watched it, so a note left by
    a loop that died, or brought back with a Redis snapshot, does not stretch it.
    """
    last, now = heartbeats.last_beat(heartbeats.WEB), time.time()
    client = presence.redis_client()
    if _web_down(last, now):
        # Since the last beat, but not since a beat older than a loop can have missed.
        began = now if last is None else max(last, now - heartbeats.ALIVE_SECONDS)
        with client.pipeline() as pipe:
            pipe.hsetnx(outage_key(), "began", began)
            pipe.hset(outage_key(), "seen", now)
            pipe.expire(outage_key(), WATCH_SECONDS)
            pipe.execute()
        return False
    noted = client.hgetall(outage_key())
    if noted:
        began, seen = float(noted[b"began"]), float(noted[b"seen"])
        ended = now if now - seen <= heartbeats.ALIVE_SECONDS else seen
        seconds = max(0.0, ended - began)
        games = games_resume(seconds=seconds)
        # Deleted after the deadlines moved: a loop killed in between pushes them twice, which
        # gives players time rather than taking it.
        client.delete(outage_key())
        logger.warning("the web tier was down for %.1f s: %d game(s) resumed", seconds, games)
    return True


def games_resume(*, seconds: float) -> int:
    """Push every playing game's deadline, the time since when each disconnected player has had
    no socket and every rematch still open when the outage began back by `seconds` of outage,
    and send the tables their states; returns how many games moved."""
    shift = timedelta(seconds=seconds)
    now = timezone.now()
    with transaction.atomic():
        rematches = Game.objects.filter(
            status=Game.Status.FINISHED,
            table__status=Table.Status.CLOSED,
            rematch_until__gt=now - shift,
        )
        tables = list(
            Table.objects.filter(
                Q(games__status=Game.Status.PLAYING) | Q(games__in=rematches)
            ).distinct()
        )
        rematches.update(rematch_until=F("rematch_until") + shift)
        games = Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False).update(
            deadline=F("deadline") + shift
        )
        # A player who lost his connection because of the outage counts as gone since it ended.
        # One absent since the deal stays so (play.drop_grace_until tells them apart).
        Seat.objects.filter(
            left_at__isnull=True,
            disconnected_at__isnull=False,
            table__games__status=Game.Status.PLAYING,
            disconnected_at__gt=F("table__games__started_at"),
        ).update(disconnected_at=Least(F("disconnected_at") + shift, now))
        for table in tables:
            effects.announce(table=table, lobby=False)
    return games
