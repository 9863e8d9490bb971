"""Reads for the lobby: the open public tables as its socket sends them, the players by stake,
and the options a player chose last."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q

from games.models import Seat, Table

LOBBY_GROUP = "games.lobby"


def _lobby_tables():
    return (
        Table.objects.filter(status=Table.Status.OPEN, private=False)
        .annotate(taken=Count("seat_set", filter=Q(seat_set__left_at__isnull=True)))
        .prefetch_related(
            Prefetch(
                "seat_set",
                queryset=Seat.objects.filter(left_at__isnull=True)
                .select_related("user")
                .order_by("position"),
                to_attr="active_seats",
            )
        )
    )


def _lobby_entry(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "stake": table.stake,
        "seats": table.seat_count,
        "taken": table.taken,
        "players": [seat.user.username for seat in table.active_seats],
        "turn_seconds": table.turn_seconds,
        "throw_seconds": table.throw_seconds,
        "speed": table.speed,
        "options": table.options,
        "private": table.private,
        "status": table.status,
        "min_reliability": table.min_reliability,
    }


def table_list_open() -> list[dict[str, Any]]:
    """Open public tables, newest first, as the lobby socket sends them."""
    return [_lobby_entry(table) for table in _lobby_tables().order_by("-created_at")]


def players_by_stake() -> list[dict[str, int]]:
    """Per stake, lowest first: players seated at open public tables (waiting for a game) and
    at tables where a game with that stake is being played."""
    rows = (
        Seat.objects.filter(
            left_at__isnull=True,
            table__practice=False,
            table__tournament_id__isnull=True,
            table__status__in=[Table.Status.OPEN, Table.Status.PLAYING],
        )
        .exclude(table__status=Table.Status.OPEN, table__private=True)
        .values("table__stake")
        .annotate(
            waiting=Count("id", filter=Q(table__status=Table.Status.OPEN)),
            playing=Count("id", filter=Q(table__status=Table.Status.PLAYING)),
        )
        .order_by("table__stake")
    )
    return [
        {"stake": row["table__stake"], "waiting": row["waiting"], "playing": row["playing"]}
        for row in rows
    ]


def table_lobby_entry(*, table_id: int) -> dict[str, Any] | None:
    """One lobby entry, or None when the table is not (or no longer) an open public table."""
    table = _lobby_tables().filter(pk=table_id).first()
    return None if table is None else _lobby_entry(table)


def last_options(*, user) -> Table:
    """The table options the user chose last: those of the latest table he opened (a practice
    table too), or the defaults, on a table with only its options loaded."""
    latest = (
        Table.objects.filter(created_by=user)
        .order_by("-created_at")
        .only("transfer", "deck", "throw_in", "limit")
        .first()
    )
    return latest or Table()
