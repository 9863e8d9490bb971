"""Plain SQL over a model's columns, for the few statements on the hot path of every move.

The ORM compiles each query anew on every call, which costs a move more Python than the
database's own work on it. Those statements are written once over the columns each model
declares; rows read become ordinary model instances, and values written are prepared, as the
ORM converts and prepares them. Every statement sends its parameters apart from its text
(the settings' `server_side_binding`), so psycopg prepares a statement that runs often and
PostgreSQL does not plan it anew either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
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
