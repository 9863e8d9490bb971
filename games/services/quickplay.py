"""Quick play: one click seats a player at the oldest open public table that fits, or a new one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Count, F, Q

from durak_site.web.client_source import Client
from games.engine import MAX_PLAYERS, MIN_PLAYERS
from games.errors import GameError
from games.models import Table
from games.selectors.reliability import player_reliability
from games.services import tables
from games.services._locks import is_int

# A new table for a player who will play with any number of players.
ANY_SEATS_DEFAULT = 2
# Tables tried before opening a new one: a race can fill the oldest ones meanwhile.
CANDIDATES = 5
# Refusals that only mean another table (or a new one) should be tried.
TAKEN = {"table_full", "table_not_open", "already_seated"}


def quick_play(
    *,
    user,
    stake: int,
    seats: int | None = None,
    options: Mapping[str, Any] | None = None,
    client: Client | None = None,
) -> Table:
    """Seat `user` at the oldest open public table with this stake, number of seats (any
    number when None) and table options (RULES.md §7; any when None), or open one for him,
    with these options or else the defaults. His stake is held either way."""
    if not is_int(stake) or stake <= 0:
        raise GameError("invalid_stake")
    if seats is not None and (not is_int(seats) or not MIN_PLAYERS <= seats <= MAX_PLAYERS):
        raise GameError("invalid_seats")
    seats_new = seats or ANY_SEATS_DEFAULT
    if options is not None:
        options = tables.checked_options(options, seats_new)
    # Only tables whose minimum reliability he meets (0: the table asks for none).
    reliability = player_reliability(user_id=user.pk).percent
    candidates = (
        Table.objects.filter(status=Table.Status.OPEN, private=False, practice=False, stake=stake)
        .filter(min_reliability__lte=reliability or 0)
        .filter(**({} if seats is None else {"seat_count": seats}))
        .filter(**(options or {}))
        .exclude(seat_set__user=user, seat_set__left_at__isnull=True)
        .annotate(taken=Count("seat_set", filter=Q(seat_set__left_at__isnull=True)))
        .filter(taken__lt=F("seat_count"))
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)[:CANDIDATES]
    )
    for table_id in candidates:
        try:
            tables.table_join(table_id=table_id, user=user, client=client)
        except GameError as error:
            if error.code not in TAKEN:
                raise
            continue
        return Table.objects.get(pk=table_id)
    return tables.table_create(
        user=user, stake=stake, seats=seats_new, options=options, client=client
    )
