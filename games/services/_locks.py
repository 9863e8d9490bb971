"""Row locks shared by the services, always taken in one order: the table, its game, seats.

The wallet locks its accounts after these.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from games import persistence
from games.errors import GameError
from games.models import Game, Seat, Table


def lock_table(table_id: Any) -> Table:
    if not is_int(table_id):
        raise GameError("table_not_found")
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise GameError("table_not_found")
    return table


def lock_game(game_id: Any) -> tuple[Table, Game]:
    """The game and its table, both locked (``persistence.table_and_game_locked``)."""
    if not is_int(game_id):
        raise GameError("game_not_found")
    found = persistence.table_and_game_locked(game_id)
    if found is None:
        raise GameError("game_not_found")
    table, game = found
    game.table = table
    return table, game


def active_seats(table: Table) -> QuerySet[Seat]:
    return Seat.objects.filter(table=table, left_at__isnull=True)


def is_int(value: object) -> bool:
    return type(value) is int
