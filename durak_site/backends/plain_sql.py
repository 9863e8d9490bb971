"""Plain SQL over a model's columns, for the few statements on the hot path of every move.

The ORM compiles each query anew on every call, which costs a move more Python than the
database's own work on it. Those statements are written once over the columns each model
declares; rows read become ordinary model instances, and values written are prepared, as the
ORM converts and prepares them. They run on a `prepared_cursor`, so that PostgreSQL does not
plan them anew either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.postgresql.base import ServerBindingCursor
from django.db.backends.utils import CursorWrapper
from django.db.models import Model

M = TypeVar("M", bound=Model)


class ModelRows(Generic[M]):
    """The columns of `fields` of `model` (all concrete ones by default) and the instances
    built from them; instances read with fewer fields load the others if they are touched."""

    def __init__(self, model: type[M], fields: Iterable[str] | None = None) -> None:
        self.model = model
        concrete = list(model._meta.concrete_fields)
        wanted = None if fields is None else {model._meta.get_field(name) for name in fields}
        # In the model's own order, which Model.from_db expects of a partial row.
        self.fields = [field for field in concrete if wanted is None or field in wanted]
        self.attnames = [field.attname for field in self.fields]
        connection = connections[DEFAULT_DB_ALIAS]
        self.converters: list[tuple[int, Any, list[Callable]]] = [
            (index, field, converters)
            for index, field in enumerate(self.fields)
            if (
                converters := connection.ops.get_db_converters(field)
                + field.get_db_converters(connection)
            )
        ]

    def columns(self, alias: str) -> str:
        """The select list, each column qualified by the table's `alias` in the query."""
        return ", ".join(f'{alias}."{field.column}"' for field in self.fields)

    def build(self, values: Sequence[Any]) -> M:
        """The instance of one row's values for these columns, in their order."""
        values = list(values)
        connection = connections[DEFAULT_DB_ALIAS]
        for index, field, converters in self.converters:
            for convert in converters:
                values[index] = convert(values[index], field, connection)
        return self.model.from_db(DEFAULT_DB_ALIAS, self.attnames, values)

    def split(self, values: Sequence[Any]) -> tuple[M, Sequence[Any]]:
        """The instance of the first values of a row that goes on with other columns, and the
        rest of the row."""
        width = len(self.fields)
        return self.build(values[:width]), values[width:]

    def insert(self, instances: Sequence[M]) -> tuple[str, list[Any]]:
        """An INSERT of the instances' values for these columns (the primary key left to the
        database), with its parameters."""
        connection = connections[DEFAULT_DB_ALIAS]
        fields = [field for field in self.fields if not field.primary_key]
        columns = ", ".join(f'"{field.column}"' for field in fields)
        row = f"({', '.join(['%s'] * len(fields))})"
        params = [
            field.get_db_prep_save(field.pre_save(instance, True), connection)
            for instance in instances
            for field in fields
        ]
        sql = f"INSERT INTO {self.model._meta.db_table} ({columns}) VALUES "
        return sql + ", ".join([row] * len(instances)), params

    def update(self, instance: M) -> tuple[str, list[Any]]:
        """An UPDATE of the instance's row to its values for these columns, with its
        parameters."""
        connection = connections[DEFAULT_DB_ALIAS]
        fields = [field for field in self.fields if not field.primary_key]
        assignments = ", ".join(f'"{field.column}" = %s' for field in fields)
        params = [
            field.get_db_prep_save(field.pre_save(instance, False), connection) for field in fields
        ]
        meta = self.model._meta
        sql = f'UPDATE {meta.db_table} SET {assignments} WHERE "{meta.pk.column}" = %s'
        return sql, [*params, instance.pk]


def prepared_cursor() -> CursorWrapper:
    """A cursor whose statements PostgreSQL parses and plans once per connection.

    Django's cursors put the parameters into the statement's text, so the server plans every
    statement anew; for the short statements of a move, planning cost it more than running
    them. This one sends the parameters apart, and psycopg prepares a statement once it has run
    `prepare_threshold` times on a connection (behind a pooler in transaction mode the setting
    is off, and statements are only sent apart). Otherwise it is Django's cursor: it takes the
    same connection and transaction, and `CaptureQueriesContext` counts its statements, though
    without their text once they run prepared (psycopg keeps none for Django's log).
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.settings_dict["OPTIONS"].get("server_side_binding"):
        # SQL_BINDING=server_side: Django's own cursor binds on the server.
        return connection.cursor()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(ServerBindingCursor(connection.connection))
