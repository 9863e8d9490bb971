"""The games' raw SQL: the statements on the hot path of every move and every state, written
once over the models' columns (``durak_site.backends.plain_sql``), where the ORM would compile
them anew on each call. The services decide and the selectors shape what is shown; these only
read and store.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from durak_site.backends.plain_sql import ModelRows
from games.models import (
    BankDistribution,
    ClockStop,
    Game,
    GameEvent,
    Rating,
    RatingChange,
    Seat,
    Table,
)
from games.rating import MODEL

# --- tables, games and seats ---------------------------------------------------------------


@cache
def _seats_query() -> tuple[ModelRows[Seat], ModelRows, str]:
    seats, users = ModelRows(Seat), ModelRows(get_user_model(), ["id", "username"])
    sql = (
        f"SELECT {seats.columns('s')}, {users.columns('u')}"
        f" FROM {Seat._meta.db_table} s JOIN {get_user_model()._meta.db_table} u"
        " ON u.id = s.user_id WHERE s.table_id = %s AND s.left_at IS NULL ORDER BY s.position"
    )
    return seats, users, sql


def table_seats(table_id: int) -> list[Seat]:
    """The table's active seats by position, each with its user's id and nickname loaded.

    Read on every move: one statement written once, not compiled by the ORM on each call.
    """
    seats, users, sql = _seats_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [table_id])
        rows = cursor.fetchall()
    found = []
    for row in rows:
        seat, rest = seats.split(row)
        seat.user = users.build(rest)
        found.append(seat)
    return found


@cache
def _table_and_game_columns() -> tuple[ModelRows[Table], ModelRows[Game], str]:
    tables, games = ModelRows(Table), ModelRows(Game)
    return tables, games, f"SELECT {tables.columns('t')}, {games.columns('g')}"


def _table_and_game_select() -> str:
    """The select list of a statement that reads a table (as ``t``) with a game (as ``g``),
    whose rows `_table_and_game` builds."""
    return _table_and_game_columns()[2]


def _table_and_game(row: Sequence[Any]) -> tuple[Table, Game | None]:
    """The table and the game of a row read with `_table_and_game_select` (None for no game)."""
    tables, games, _ = _table_and_game_columns()
    table, rest = tables.split(row)
    return table, None if rest[0] is None else games.build(rest)


@cache
def _table_snapshot_query() -> str:
    return (
        f"{_table_and_game_select()} FROM {Table._meta.db_table} t"
        f" LEFT JOIN LATERAL (SELECT * FROM {Game._meta.db_table} WHERE table_id = t.id"
        " ORDER BY number DESC LIMIT 1) g ON true WHERE t.id = %s"
    )


@cache
def _lock_game_query() -> str:
    # PostgreSQL locks the rows named by OF in that order: the table's, then the game's.
    return (
        f"{_table_and_game_select()}"
        f" FROM {Table._meta.db_table} t JOIN {Game._meta.db_table} g ON g.table_id = t.id"
        " WHERE g.id = %s FOR UPDATE OF t, g"
    )


def table_and_current_game(table_id: int) -> tuple[Table, Game | None] | None:
    """The table with this id and its current game (None: no game yet), None if there is no
    such table: one statement, as every change announced to a table reads them."""
    with connection.cursor() as cursor:
        cursor.execute(_table_snapshot_query(), [table_id])
        row = cursor.fetchone()
    return None if row is None else _table_and_game(row)


def table_and_game_locked(game_id: int) -> tuple[Table, Game | None] | None:
    """The game and its table, both locked, None if there is no such game: one statement, as
    every move takes it."""
    with connection.cursor() as cursor:
        cursor.execute(_lock_game_query(), [game_id])
        row = cursor.fetchone()
    return None if row is None else _table_and_game(row)


def game_result_rows(
    game_id: int,
) -> list[tuple[BankDistribution, str, float | None, float | None, float | None, float | None]]:
    """A finished game's bank shares in place order, each with its player's nickname, his
    (mu, sigma) after the game if it was rated, and before it (None before his first rated
    game): one statement, as every state of a finished game reads them."""
    share_rows, sql = _game_result_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        rows = cursor.fetchall()
    found = []
    for row in rows:
        share, (nickname, mu, sigma, mu_before, sigma_before) = share_rows.split(row)
        found.append((share, nickname, mu, sigma, mu_before, sigma_before))
    return found


@cache
def _game_result_query() -> tuple[ModelRows[BankDistribution], str]:
    shares, changes = ModelRows(BankDistribution), RatingChange._meta.db_table
    sql = (
        f"SELECT {shares.columns('s')}, u.username, c.mu, c.sigma, p.mu, p.sigma"
        f" FROM {BankDistribution._meta.db_table} s"
        f" JOIN {get_user_model()._meta.db_table} u ON u.id = s.user_id"
        f" LEFT JOIN {changes} c ON c.game_id = s.game_id AND c.user_id = s.user_id"
        f" LEFT JOIN LATERAL (SELECT mu, sigma FROM {changes} WHERE user_id = s.user_id"
        " AND id < c.id ORDER BY id DESC LIMIT 1) p ON true"
        " WHERE s.game_id = %s ORDER BY s.place, s.seat"
    )
    return shares, sql


def latest_game_and_seated(table_id: int) -> tuple[int | None, list[int]]:
    """The table's latest game and its seated users, in one statement written once: every
    confirmation reads them."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT id FROM {Game._meta.db_table} WHERE table_id = %s"
            " ORDER BY number DESC LIMIT 1),"
            f" ARRAY(SELECT user_id FROM {Seat._meta.db_table}"
            " WHERE table_id = %s AND left_at IS NULL)",
            [table_id, table_id],
        )
        return cursor.fetchone()


# --- moves and finished games -------------------------------------------------------------


# What a move changes in its game's row, and what its finish changes besides.
_MOVED_GAME = ModelRows(Game, ["state", "version", "deadline", "stalemate", "resumed_at"])
_FINISHED_GAME = ModelRows(
    Game,
    [
        *_MOVED_GAME.attnames,
        "status",
        "finished_at",
        "rematch_until",
        "commission",
        "percentages",
    ],
)
_EVENTS = ModelRows(GameEvent)
_SHARES = ModelRows(BankDistribution)


def moves_store(game: Game, events: list[GameEvent]) -> None:
    """Insert a move's events and update its game's row, in one statement written once."""
    _store(game, _MOVED_GAME, events)


def game_finish_store(
    game: Game,
    table: Table,
    events: list[GameEvent],
    shares: list[BankDistribution],
    now: datetime,
) -> None:
    """Insert a game's last events and its bank's shares, close its table and the seats at
    it, and update its finished row, in one statement written once."""
    _store(
        game,
        _FINISHED_GAME,
        events,
        [
            _SHARES.insert(shares),
            (
                f"UPDATE {Seat._meta.db_table} SET left_at = %s"
                " WHERE table_id = %s AND left_at IS NULL",
                [now, table.pk],
            ),
            (
                f"UPDATE {Table._meta.db_table} SET status = %s WHERE id = %s",
                [table.status, table.pk],
            ),
        ],
    )


def _store(
    game: Game,
    game_row: ModelRows[Game],
    events: list[GameEvent],
    writes: Sequence[tuple[str, list]] = (),
) -> None:
    """Insert `events`, run the other `writes` and update the game's `game_row`, in one
    statement: every move stores them, and the ORM would compile each anew."""
    sql, params = game_row.update(game)
    if events:
        writes = [_EVENTS.insert(events), *writes]
    if writes:
        # A data-modifying WITH runs whether or not the statement after it reads from it.
        steps = ", ".join(f"step{index} AS ({step})" for index, (step, _) in enumerate(writes))
        sql = f"WITH {steps} {sql}"
        params = [*(value for _, values in writes for value in values), *params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


# --- ratings -------------------------------------------------------------------------------


def ratings_lock(user_ids: list[int]) -> dict[int, tuple[float, float]]:
    """Each player's stored (mu, sigma), his row locked; a newcomer's row is made at the model's
    start. In one order, by player, so two games finishing together never deadlock."""
    ratings = Rating._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {ratings} (user_id, mu, sigma, games)"
            " SELECT id, %s, %s, 0 FROM unnest(%s::bigint[]) AS id ORDER BY id"
            f" ON CONFLICT (user_id) DO UPDATE SET games = {ratings}.games"
            " RETURNING user_id, mu, sigma",
            [MODEL.mu, MODEL.sigma, sorted(user_ids)],
        )
        return {user_id: (mu, sigma) for user_id, mu, sigma in cursor.fetchall()}


def ratings_store(*, game_id: int, user_ids: list[int], ratings: list[tuple[float, float]]) -> None:
    """Store each player's (mu, sigma) after the game, and the game's rating changes."""
    rated = [user_ids, [mu for mu, _ in ratings], [sigma for _, sigma in ratings]]
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH changes AS (INSERT INTO {RatingChange._meta.db_table}"
            " (game_id, user_id, mu, sigma, created_at)"
            " SELECT %s, v.*, %s FROM unnest(%s::bigint[], %s::float8[], %s::float8[]) AS v)"
            f" UPDATE {Rating._meta.db_table} r"
            " SET mu = v.mu, sigma = v.sigma, games = r.games + 1"
            " FROM unnest(%s::bigint[], %s::float8[], %s::float8[]) AS v (user_id, mu, sigma)"
            " WHERE r.user_id = v.user_id",
            [game_id, timezone.now(), *rated, *rated],
        )


# --- outages --------------------------------------------------------------------------------


def clock_stop_note(began: float, seen: float) -> None:
    """Note an outage in the ``ClockStop`` row: the earliest start, the latest sighting."""
    table = ClockStop._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (id, began, seen) VALUES (%s, %s, %s) "  # noqa: S608 - our name
            f"ON CONFLICT (id) DO UPDATE SET began = LEAST({table}.began, EXCLUDED.began), "
            f"seen = GREATEST({table}.seen, EXCLUDED.seen)",
            [ClockStop.ROW, began, seen],
        )
