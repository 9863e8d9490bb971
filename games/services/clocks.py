"""When the games' clocks run: not while players cannot act because a part of the platform they
need is down, or stalled: the web tier, Redis or PostgreSQL.

Outages are noted by those who see them, in whichever store still answers:
- every Daphne process beats (``durak_site.ops.heartbeats``); the deadline loop notes since when
  the web has been silent (``watch``), in Redis;
- every Celery worker keeps a watcher (``keep_watching``) that asks Redis and PostgreSQL every
  beat, each within a time limit so that a stalled server is seen too, and the deadline loop
  notes the errors it meets (``note_stop``): an outage of Redis is noted in PostgreSQL (the
  ``ClockStop`` row), one of PostgreSQL in Redis.

A note holds when the outage began and when it was last seen going on: it counts only as long
as someone watched it, so a note left by a process that died, or brought back with a Redis
snapshot, does not stretch it. While a note waits, no deadline fires and no practice game is
ended for its absent player. The first deadline loop that finds the web serving and both stores
answering makes up for it (``games_resume``): every playing game's deadline moves back by the
outage's length, and to at least a turn time from then; a waited player who comes back within
that turn time gets at least a throw-in window from his return (``deadline_for_return``). The
time since when each disconnected player has had no socket, and open rematches, move back the
same way. The row keeps the end of the outage made up for, in the same transaction as the
deadlines it moved, so a note that arrives late, or a loop killed half-way, never moves them
twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import (
    DateTimeField,
    DurationField,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Greatest, Least, Now
from django.utils import timezone
from redis.exceptions import RedisError

from durak_site.ops import db_probes, heartbeats
from games import effects, persistence
from games.models import ClockStop, Game, Seat, Table

# A note in Redis that nobody has renewed for this long is dropped.
WATCH_SECONDS = 60
# How long each store is given to answer the watcher, and to take its note.
PROBE_SECONDS = 1.0
logger = logging.getLogger(__name__)


def outage_key() -> str:
    return cache.make_key("games:outage-since")


def _web_down(last_beat: float | None, now: float) -> bool:
    return last_beat is None or now - last_beat > heartbeats.ALIVE_SECONDS


def served_until() -> datetime | None:
    """The latest deadline that may fire now: one that passed while the web was alive (up to a
    beat after its last one). None while no web process is alive, or an outage noted in Redis
    waits to be made up for (one noted in PostgreSQL keeps ``sweep.deadlines_due`` empty)."""
    with heartbeats.redis_client().pipeline(transaction=False) as pipe:
        pipe.zrevrange(heartbeats.key(heartbeats.WEB), 0, 0, withscores=True)
        pipe.exists(outage_key())
        latest, noted = pipe.execute()
    last, now = (latest[0][1] if latest else None), time.time()
    if noted or _web_down(last, now):
        return None
    return datetime.fromtimestamp(min(now, last + 2 * heartbeats.BEAT_SECONDS), tz=UTC)


def _noted_in_database():
    return ClockStop.objects.filter(pk=ClockStop.ROW, began__isnull=False)


def noted_in_database() -> Exists:
    """True in a query while an outage noted in PostgreSQL waits to be made up for."""
    return Exists(_noted_in_database())


def running() -> bool:
    """Whether the games' clocks run: a web process is alive and no outage waits."""
    return served_until() is not None and not _noted_in_database().exists()


def watch() -> bool:
    """Note an outage of the web tier, or make up for every outage noted once the platform
    serves again; whether the clocks run.

    The deadline loop calls this every round, holding its lock in Redis: Redis answers.
    """
    now = time.time()
    with heartbeats.redis_client().pipeline(transaction=False) as pipe:
        pipe.zrevrange(heartbeats.key(heartbeats.WEB), 0, 0, withscores=True)
        pipe.hgetall(outage_key())
        latest, noted = pipe.execute()
    last = latest[0][1] if latest else None
    if _web_down(last, now):
        # Since the last beat, but not since a beat older than a loop can have missed.
        began = now if last is None else max(last, now - heartbeats.ALIVE_SECONDS)
        _note_in_redis(began, now)
        return False
    if noted or _noted_in_database().exists():
        _make_up(noted, now)
    return True


def _make_up(noted_in_redis: dict[bytes, bytes], now: float) -> None:
    """Move the clocks back by the outage the notes tell of, then forget the notes."""
    with transaction.atomic():
        stop, _created = ClockStop.objects.select_for_update().get_or_create(pk=ClockStop.ROW)
        notes = [] if stop.began is None else [(stop.began, stop.seen)]
        if noted_in_redis:
            notes.append((float(noted_in_redis[b"began"]), float(noted_in_redis[b"seen"])))
        made_up_to = stop.resumed or 0.0
        spans = [
            (max(began, made_up_to), now if now - seen <= heartbeats.ALIVE_SECONDS else seen)
            for began, seen in notes
            if seen > made_up_to  # else an outage already made up for, noted late
        ]
        if spans:
            began, ended = min(span[0] for span in spans), max(span[1] for span in spans)
            games = games_resume(seconds=max(0.0, ended - began))
            stop.resumed = ended
            logger.warning(
                "the platform was down for %.1f s: %d game(s) resumed", ended - began, games
            )
        stop.began = stop.seen = None
        stop.save()
    if noted_in_redis:
        # After the deadlines moved: a loop killed in between finds this note made up for.
        heartbeats.redis_client().delete(outage_key())


def note_stop(began: float, seen: float, *, database: bool = True, redis: bool = True) -> bool:
    """Note that the clocks stopped at `began` and were still stopped at `seen`: in PostgreSQL
    unless `database` is known to be down or does not answer in time, else in Redis unless
    `redis` is known to be down. Whether the note was taken."""
    if database:
        try:
            db_probes.within(PROBE_SECONDS, lambda: persistence.clock_stop_note(began, seen))
            return True
        except Exception:
            logger.warning("an outage could not be noted in PostgreSQL", exc_info=True)
    if redis:
        try:
            _note_in_redis(began, seen)
            return True
        except RedisError:
            logger.warning("an outage could not be noted in Redis", exc_info=True)
    return False


def _note_in_redis(began: float, seen: float) -> None:
    with heartbeats.redis_client().pipeline() as pipe:
        pipe.hsetnx(outage_key(), "began", began)
        pipe.hset(outage_key(), "seen", seen)
        pipe.expire(outage_key(), WATCH_SECONDS)
        pipe.execute()


def _redis_answers() -> bool:
    try:
        return bool(heartbeats.redis_client().ping())
    except RedisError:
        return False


def keep_watching(sleep: Callable[[float], None] = time.sleep) -> None:
    """Every beat, ask Redis and PostgreSQL whether they answer in time, and note an outage of
    either in the other, for the worker's life. The outage counts from the first failed look
    of this process, also when neither could take the note at first."""
    began: float | None = None
    while True:
        looked = time.time()
        redis_up, database_up = _redis_answers(), db_probes.database_answers(PROBE_SECONDS)
        if redis_up and database_up:
            began = None
        else:
            began = looked if began is None else began
            note_stop(began, time.time(), database=database_up, redis=redis_up)
        sleep(max(0.0, looked + heartbeats.BEAT_SECONDS - time.time()))


def games_resume(*, seconds: float) -> int:
    """Push every playing game's deadline back by `seconds` of outage, and to at least a turn
    time from now; push the time since when each disconnected player has had no socket, and
    every rematch still open when the outage began, back by the same; send the tables their
    states. Returns how many games moved."""
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
        turn = ExpressionWrapper(
            Subquery(Table.objects.filter(pk=OuterRef("table_id")).values("turn_seconds"))
            * timedelta(seconds=1),
            output_field=DurationField(),
        )
        games = Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False).update(
            deadline=Greatest(
                F("deadline") + shift, Value(now, output_field=DateTimeField()) + turn
            ),
            resumed_at=now,
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


def games_owing_time(table_id: int) -> QuerySet[Game]:
    """The table's playing game while it owes its waited players time for an outage: one that
    ended, with the game waiting, less than a turn time ago."""
    return Game.objects.filter(
        table_id=table_id,
        status=Game.Status.PLAYING,
        resumed_at__gte=Now() - F("table__turn_seconds") * timedelta(seconds=1),
    )


def deadline_for_return(game: Game, table: Table, now: datetime) -> datetime | None:
    """The later deadline a waited player coming back at `now` to a game that owes time is
    owed: at least a throw-in window. None when the deadline already gives it."""
    owed = now + timedelta(seconds=table.throw_seconds)
    return owed if game.deadline is not None and owed > game.deadline else None
