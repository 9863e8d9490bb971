"""Presence and away (RULES.md §5): who has a socket open at a table, and the away mark.

A socket's coming and going changes nobody's time: nobody is played for before his deadline,
connected or not. Since when a player has had no socket open (``Seat.disconnected_at``) tells
a drop of the whole table at once (``play.drop_grace_until``) and a practice table its player
left (``practice.practices_close_deserted``). Away is earned by timeouts alone (``play``).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games import effects, presence
from games.engine import Game as EngineGame
from games.errors import GameError
from games.models import Game, Seat, Table
from games.selectors import tables
from games.services import clocks
from games.services._locks import active_seats, lock_table


def presence_connect(*, table_id: int, user, connection: str) -> None:
    """Record one more open socket of the user at the table; a seated player is back."""
    presence.add(table_id, user.pk, connection)
    if presence.count(table_id, user.pk) == 1:  # his first: he shows as connected now
        _presence_back(table_id=table_id, user=user)
    elif clocks.games_owing_time(table_id).exists():
        # Back from an outage that his lost socket does not yet count as gone for.
        _presence_back(table_id=table_id, user=user)


def presence_open(*, table_id: int, user, invite_code: str, connection: str) -> bool:
    """Count a socket the user opens at the table (``presence_connect``) if he may see the table;
    whether he may. A private table he may not see does not exist for him, as on its page."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not tables.table_visible_to(
        table=table, user=user, invite_code=invite_code
    ):
        return False
    presence_connect(table_id=table_id, user=user, connection=connection)
    return True


def presence_heartbeat(*, table_id: int, user, connection: str) -> None:
    """Keep an open socket counted; one already given up for lost counts again."""
    if presence.add(table_id, user.pk, connection):
        _presence_back(table_id=table_id, user=user)


def _presence_back(*, table_id: int, user) -> None:
    """A seated user is connected again, and the table hears it. His away mark and the
    server's moves for him stay until he acts or says he is back: he is told of them. If the
    game waits for him soon after an outage, he gets the time it owes him.

    Under the table's lock, so that a command in progress cannot write the old time back.
    """
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None:
            return
        Seat.objects.filter(
            table_id=table_id, user_id=user.pk, left_at__isnull=True, disconnected_at__isnull=False
        ).update(disconnected_at=None)
        if _give_time_owed_for_outage(table, user) or tables.table_shows_player(
            table=table, user_id=user.pk
        ):
            effects.announce(table=table, lobby=False)


def _give_time_owed_for_outage(table: Table, user) -> bool:
    """A waited player back soon after an outage gets at least a throw-in window from now
    (games.services.clocks); whether his game's deadline moved. Under the table's lock."""
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
    """Forget one socket; when a playing seat's last socket closes, note since when."""
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
        if seat is not None or tables.table_shows_player(table=table, user_id=user.pk):
            effects.announce(table=table, lobby=False)


def seats_mark_disconnected() -> None:
    """Note since when playing seats have had no socket whose sockets all died with their
    process.

    Their sockets never said goodbye; they stopped counting once their heartbeats went stale.
    """
    seated = Seat.objects.filter(
        left_at__isnull=True,
        disconnected_at__isnull=True,
        table__status=Table.Status.PLAYING,
        user__bot__isnull=True,  # bots have no sockets
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


def seat_back(*, table_id: int, user) -> bool:
    """The player says he is back («Я вернулся»): the away mark and the count of the server's
    moves for him clear, and a move of his that the mark had shrunk to the throw-in window
    gets a whole turn time from now. False when there was nothing to clear."""
    with transaction.atomic(durable=True):
        table = lock_table(table_id)
        game = table.games.select_for_update().filter(status=Game.Status.PLAYING).first()
        seat = active_seats(table).select_for_update().filter(user_id=user.pk).first()
        if seat is None:
            raise GameError("not_seated")
        if not seat.away and not seat.server_moves:
            return False
        if seat.away and game is not None and game.deadline is not None:
            engine = EngineGame.from_dict(game.state)
            if engine.deadline_kind == "turn" and seat.position in engine.waiting_for:
                whole_turn = timezone.now() + timedelta(seconds=table.turn_seconds)
                game.deadline = max(game.deadline, whole_turn)
                game.save(update_fields=["deadline"])
        seat.away, seat.server_moves = False, {}
        seat.save(update_fields=["away", "server_moves"])
        effects.announce(table=table, lobby=False)
    return True
