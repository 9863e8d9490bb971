"""Row locks shared by the services, always taken in one order: the table, its game, seats.

The wallet locks its accounts after these.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

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
    if not is_int(game_id):
        raise GameError("game_not_found")
    # Only the table's row is locked by the join; the game's is locked next, in the same order.
    table = Table.objects.select_for_update(of=("self",)).filter(games__pk=game_id).first()
    if table is None:
        raise GameError("game_not_found")
    game = Game.objects.select_for_update().get(pk=game_id)
    return table, game


def active_seats(table: Table) -> QuerySet[Seat]:
    return Seat.objects.filter(table=table, left_at__isnull=True)


def is_int(value: object) -> bool:
    return type(value) is int
