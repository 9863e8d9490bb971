"""Presence and away (RULES.md §5): who has a socket open at a table, and who is played for."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import clocks, effects, presence, selectors
from games.engine import Game as EngineGame
from games.errors import GameError
from games.models import Game, Seat, Table
from games.services import play
from games.services._locks import active_seats, lock_table


def presence_connect(*, table_id: int, user, connection: str) -> None:
    """Record one more open socket of the user at the table; a seated player is back."""
    presence.add(table_id, user.pk, connection)
    if presence.count(table_id, user.pk) == 1:  # his first: he shows as connected now
        _presence_back(table_id=table_id, user=user)
    elif clocks.games_owing_time(table_id).exists():
        # Back from an outage that his lost socket does not yet count as gone for.
        _presence_back(table_id=table_id, user=user)


def presence_heartbeat(*, table_id: int, user, connection: str) -> None:
    """Keep an open socket counted; one already given up for lost counts again."""
    if presence.add(table_id, user.pk, connection):
        _presence_back(table_id=table_id, user=user)


def _presence_back(*, table_id: int, user) -> None:
    """A seated user is connected again: no longer away, his timeouts count from zero, and the
    game waits for him as for anyone; if it waits for him soon after an outage, he gets the
    time it owes him. A spectator's coming changes nobody's state.

    Under the table's lock, so that a command in progress cannot write the old mark back.
    """
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None:
            return
        Seat.objects.filter(table_id=table_id, user_id=user.pk, left_at__isnull=True).filter(
            Q(disconnected_at__isnull=False) | Q(away=True)
        ).update(disconnected_at=None, away=False, consecutive_timeouts=0)
        if _give_time_owed_for_outage(table, user) or selectors.table_shows_player(
            table=table, user_id=user.pk
        ):
            effects.announce(table=table, lobby=False)


def _give_time_owed_for_outage(table: Table, user) -> bool:
    """A waited player back soon after an outage gets at least a throw-in window from now
    (games.clocks); whether his game's deadline moved. Under the table's lock."""
    game = clocks.games_owing_time(table.pk).select_for_update(of=("self",)).first()
    if game is None:
        return False
    deadline = clocks.deadline_for_return(game, table, timezone.now())
    position = (
        active_seats(table).filter(user_id=user.pk).values_list("position", flat=True).first()
    )
    if deadline is None or position not in EngineGame.from_dict(game.state).waiting_for:
        return False
    game.deadline = deadline
    game.save(update_fields=["deadline"])
    return True


def presence_disconnect(*, table_id: int, user, connection: str) -> None:
    """Forget one socket; when a playing seat's last socket closes, start the away clock."""
    if presence.remove(table_id, user.pk, connection) > 0:
        return
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            return
        seat = active_seats(table).filter(user_id=user.pk).first()
        if seat is not None and table.status == Table.Status.PLAYING:
            seat.disconnected_at = timezone.now()
            seat.save(update_fields=["disconnected_at"])
            effects.schedule_away_check(seat_id=seat.pk, countdown=table.turn_seconds + 0.5)
        if seat is not None or selectors.table_shows_player(table=table, user_id=user.pk):
            effects.announce(table=table, lobby=False)


def seats_mark_disconnected() -> None:
    """Start the away clock of playing seats whose sockets all died with their process.

    Their sockets never said goodbye; they stopped counting once their heartbeats went stale.
    """
    seated = Seat.objects.filter(
        left_at__isnull=True,
        disconnected_at__isnull=True,
        table__status=Table.Status.PLAYING,
        user__bot__isnull=True,  # bots have no sockets: they are never away
    ).values_list("pk", "table_id", "user_id")
    by_table: dict[int, list[tuple[int, int]]] = {}
    for seat_id, table_id, user_id in seated:
        by_table.setdefault(table_id, []).append((seat_id, user_id))
    live = presence.connected_at(
        {table_id: [user_id for _seat, user_id in seats] for table_id, seats in by_table.items()}
    )
    for table_id, seats in by_table.items():
        lost = [seat_id for seat_id, user_id in seats if user_id not in live[table_id]]
        if not lost:
            continue
        with transaction.atomic():
            table = Table.objects.get(pk=table_id)
            Seat.objects.filter(pk__in=lost, disconnected_at__isnull=True).update(
                disconnected_at=timezone.now()
            )
            effects.announce(table=table, lobby=False)


def seat_mark_away(*, seat_id: int) -> bool:
    """Mark a player away who has been disconnected longer than one turn time (RULES §5)."""
    with transaction.atomic(durable=True):
        table_id = Seat.objects.filter(pk=seat_id).values_list("table_id", flat=True).first()
        if table_id is None:
            return False
        table = Table.objects.select_for_update().get(pk=table_id)
        game = table.games.select_for_update().filter(status=Game.Status.PLAYING).first()
        seat = Seat.objects.select_for_update().get(pk=seat_id)
        if (
            game is None
            or seat.left_at is not None
            or seat.away
            or seat.disconnected_at is None
            or seat.disconnected_at > timezone.now() - timedelta(seconds=table.turn_seconds)
            or presence.count(table_id, seat.user_id) > 0
            or not clocks.running()  # he could not have come back
        ):
            return False
        change = play.Change(table, game, EngineGame.from_dict(game.state), play.seated(table))
        if play.drop_grace_until(change) is not None:
            return False  # everyone dropped at once: the sweep comes back after the grace
        seat.away = True
        seat.save(update_fields=["away"])
        if seat.position in change.engine.waiting_for:
            change.seat_at(seat.position).away = True
            play.advance_and_save(change)
        else:
            effects.announce(table=table, lobby=False)
    return True


def seat_back(*, table_id: int, user) -> bool:
    """The player says he is back («Я вернулся»), as a reconnection says it: the away mark
    clears and his timeouts start from zero. False when he was not marked away."""
    with transaction.atomic(durable=True):
        table = lock_table(table_id)
        seat = active_seats(table).select_for_update().filter(user_id=user.pk).first()
        if seat is None:
            raise GameError("not_seated")
        if not seat.away:
            return False
        seat.away = False
        seat.consecutive_timeouts = 0
        seat.save(update_fields=["away", "consecutive_timeouts"])
        effects.announce(table=table, lobby=False)
    return True
