"""Row locks shared by the services, always taken in one order: the table, its game, seats.

The wallet locks its accounts after these.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db.models import QuerySet

from durak_site.backends.plain_sql import prepared_cursor
from games import selectors
from games.errors import GameError
from games.models import Game, Seat, Table


def lock_table(table_id: Any) -> Table:
    if not is_int(table_id):
        raise GameError("table_not_found")
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise GameError("table_not_found")
    return table


@cache
def _lock_game_query() -> str:
    # PostgreSQL locks the rows named by OF in that order: the table's, then the game's.
    return (
        f"{selectors.table_and_game_select()}"
        f" FROM {Table._meta.db_table} t JOIN {Game._meta.db_table} g ON g.table_id = t.id"
        " WHERE g.id = %s FOR UPDATE OF t, g"
    )


def lock_game(game_id: Any) -> tuple[Table, Game]:
    """The game and its table, both locked, in one statement written once (every move takes
    it, and the ORM would compile it anew each time)."""
    if not is_int(game_id):
        raise GameError("game_not_found")
    with prepared_cursor() as cursor:
        cursor.execute(_lock_game_query(), [game_id])
        row = cursor.fetchone()
    if row is None:
        raise GameError("game_not_found")
    table, game = selectors.table_and_game(row)
    game.table = table
    return table, game


def active_seats(table: Table) -> QuerySet[Seat]:
    return Seat.objects.filter(table=table, left_at__isnull=True)


def is_int(value: object) -> bool:
    return type(value) is int
