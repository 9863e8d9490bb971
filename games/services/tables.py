"""Tables: open one, sit down and stand up with the stake held and released, close it."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from durak_site.web.client_source import Client
from games import effects
from games.engine import MAX_PLAYERS, MAX_PLAYERS_BY_DECK, MIN_PLAYERS, table_options
from games.errors import ERROR_MESSAGES, GameError
from games.models import PRACTICE_PLAYER_SEAT, Bot, Game, Seat, Table
from games.selectors.reliability import player_reliability

# Modules, not names: tables and practice use each other (seat_take ends a practice game
# elsewhere, practice seats its players through seat_take), each when called.
from games.services import play, practice
from games.services._locks import active_seats, is_int, lock_table
from games.services.blocks import check_not_blocked
from wallet import limits
from wallet import services as wallet_services
from wallet.services import WalletError

MIN_TURN_SECONDS, MAX_TURN_SECONDS = 5, 300
MIN_THROW_SECONDS, MAX_THROW_SECONDS = 3, 120
MAX_STAKE = 10**12


def checked_options(options: Mapping[str, Any] | None, seats: int) -> dict[str, Any]:
    """The table options of RULES.md §7 (missing ones at their defaults) for a table of
    `seats`; GameError when one is unknown or out of range, or the deck is too small."""
    try:
        full = table_options(options)
    except ValueError as error:
        raise GameError("invalid_options") from error
    if seats > MAX_PLAYERS_BY_DECK[full["deck"]]:
        raise GameError("deck_too_small")
    return full


def table_create(
    *,
    user,
    stake: int,
    seats: int,
    turn_seconds: int = 30,
    throw_seconds: int = 10,
    private: bool = False,
    min_reliability: int = 0,
    options: Mapping[str, Any] | None = None,
    client: Client | None = None,
) -> Table:
    """Open a table with these options (RULES.md §7; the defaults for those not given); the
    creator takes seat 0 and his stake is held. Players need `min_reliability` % to join."""
    if not is_int(stake) or not 0 < stake <= MAX_STAKE:
        raise GameError("invalid_stake")
    if not is_int(seats) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise GameError("invalid_seats")
    options = checked_options(options, seats)
    if (
        not is_int(turn_seconds)
        or not is_int(throw_seconds)
        or not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS
        or not MIN_THROW_SECONDS <= throw_seconds <= MAX_THROW_SECONDS
    ):
        raise GameError("invalid_time")
    if not is_int(min_reliability) or not 0 <= min_reliability <= 100:
        raise GameError("invalid_min_reliability")
    with transaction.atomic():
        table = Table.objects.create(
            stake=stake,
            seat_count=seats,
            turn_seconds=turn_seconds,
            throw_seconds=throw_seconds,
            commission_percent=Decimal(settings.GAMES_COMMISSION_PERCENT),
            private=bool(private),
            invite_code=secrets.token_urlsafe(9) if private else "",
            min_reliability=min_reliability,
            created_by=user,
            **options,
        )
        seat_take(table=table, user=user, position=0, client=client)
        effects.announce(table=table)
    return table


def tournament_table_open(
    *,
    tournament_id: int,
    users: list,
    clients: list[Client | None],
    turn_seconds: int,
    throw_seconds: int,
    options: Mapping[str, Any],
) -> Game:
    """Seat a tournament's players (in this order, each from his client) at a new table without
    a stake and deal them a game at once (in the caller's transaction, the tournament row
    locked by the caller). The table never shows in the lobby: it is playing when the
    transaction commits."""
    options = checked_options(options, len(users))
    table = Table.objects.create(
        stake=0,
        seat_count=len(users),
        turn_seconds=turn_seconds,
        throw_seconds=throw_seconds,
        commission_percent=Decimal(0),
        tournament_id=tournament_id,
        created_by=users[0],
        **options,
    )
    for position, (user, client) in enumerate(zip(users, clients, strict=True)):
        seat_take(table=table, user=user, position=position, client=client)
    return play.game_start(table=table, listed=False)


def table_join(
    *, table_id: int, user, invite_code: str | None = None, client: Client | None = None
) -> Seat:
    """Sit down at the first free seat and hold the stake; the last seat starts the game."""
    with transaction.atomic():
        table = lock_table(table_id)
        if table.status != Table.Status.OPEN:
            raise GameError("table_not_open")
        if table.private and not secrets.compare_digest(
            str(invite_code or "").encode(), table.invite_code.encode()
        ):
            raise GameError("bad_invite_code")
        seats = list(table.seat_set.filter(left_at__isnull=True))
        if any(seat.user_id == user.pk for seat in seats):
            raise GameError("already_seated")
        if len(seats) >= table.seat_count:
            raise GameError("table_full")
        check_reliability(table=table, user=user)
        taken = {seat.position for seat in seats}
        position = min(set(range(table.seat_count)) - taken)
        seat = seat_take(table=table, user=user, position=position, client=client)
        if len(seats) + 1 == table.seat_count:
            play.game_start(table=table)  # announces the new game itself
        else:
            effects.announce(table=table)
    return seat


def check_reliability(*, table: Table, user) -> None:
    """Refuse a player whose reliability is below the table's minimum, saying both."""
    if not table.min_reliability:
        return
    reliability = player_reliability(user_id=user.pk)
    if reliability.meets(table.min_reliability):
        return
    if reliability.percent is None:
        told = _(
            "This table asks for a reliability of at least {minimum} %; you have no games "
            "with a stake yet."
        )
    else:
        told = _("This table asks for a reliability of at least {minimum} %; yours is {yours} %.")
    raise GameError(
        "reliability_too_low",
        format_lazy(told, minimum=table.min_reliability, yours=reliability.percent),
    )


def table_leave(*, table_id: int, user) -> Table:
    """Stand up before the game starts (or withdraw a rematch confirmation); stake released.

    A practice table may be left at any time: its game ends with it (``practice``).
    """
    with transaction.atomic():
        table = lock_table(table_id)
        seat = table.seat_set.filter(left_at__isnull=True, user_id=user.pk).first()
        if seat is None:
            raise GameError("not_seated")
        if table.practice:
            practice.practice_leave(table=table)
            return table
        if table.status == Table.Status.PLAYING:
            raise GameError("game_in_progress")
        # A withdrawn rematch confirmation leaves a closed table: the lobby does not list it.
        listed = table.status == Table.Status.OPEN
        seat_release(table=table, seat=seat)
        if listed and not table.seat_set.filter(left_at__isnull=True).exists():
            table.status = Table.Status.CLOSED
            table.save(update_fields=["status"])
        effects.announce(table=table, lobby=listed)
    return table


def table_expire(*, table_id: int) -> bool:
    """Close an open table nobody joined for ``TABLE_OPEN_TTL`` seconds; every stake returns.

    Under the table lock, so a join racing it either sits down first (and the table is no
    longer stale) or finds the table closed. A second call finds it closed and does nothing.
    """
    with transaction.atomic():
        table = lock_table(table_id)
        seats = list(active_seats(table).select_related("user"))
        newest = max((seat.joined_at for seat in seats), default=None)
        if table.status != Table.Status.OPEN or (newest is not None and newest > open_cutoff()):
            return False
        for seat in seats:
            seat_release(table=table, seat=seat)
        table.status = Table.Status.CLOSED
        table.save(update_fields=["status"])
        effects.announce(table=table)
    return True


def open_cutoff():
    """Open tables whose newest seat was taken before this are abandoned."""
    return timezone.now() - timedelta(seconds=settings.TABLE_OPEN_TTL)


def table_set_commission(*, table_id: int, commission_percent: Decimal) -> None:
    """Staff set the house commission of the table's next games; a running game keeps its own."""
    with transaction.atomic():
        table = lock_table(table_id)
        if table.status == Table.Status.PLAYING:
            raise GameError("commission_locked")
        # Only this column: the row's other fields belong to the players' commands.
        table.commission_percent = commission_percent
        table.save(update_fields=["commission_percent"])


def seat_take(*, table: Table, user, position: int, client: Client | None = None) -> Seat:
    """Seat the user and hold his stake (table row locked by the caller). Every way to a seat
    (open, join, quick play, rematch, practice) comes through here.

    Bots sit only at practice tables, where nobody stakes anything. A player who sits down
    anywhere else ends the practice game he was playing.
    """
    if not table.practice or position == PRACTICE_PLAYER_SEAT:
        practice.practices_end_elsewhere(user=user, table=table)
    if not table.practice and table.tournament_id is None:
        if Bot.objects.filter(user_id=user.pk).exists():
            raise GameError("bots_practice_only")
        # Staff blocks keep a player from stakes only: practice stays open to him. A
        # tournament checked them (and held its money) when the player registered.
        check_not_blocked(user=user)
    seat = Seat.objects.create(
        table=table,
        user=user,
        position=position,
        client_address=client and client.address,
        browser_id=client.browser_id if client else "",
        user_agent_hash=client.user_agent_hash if client else "",
    )
    if table.tournament_id is not None:
        return seat
    try:
        if table.practice:
            # Nothing is staked, but a player on a break from play does not play at all.
            limits.check_not_on_break(user=user, now=timezone.now())
        else:
            # Breaks from play and loss limits, checked under the player's wallet lock.
            wallet = limits.check_stake(user=user, amount=table.stake)
            wallet_services.stake_hold(
                user=user,
                table_id=table.pk,
                amount=table.stake,
                idempotency_key=f"hold:table:{table.pk}:seat:{seat.pk}",
                wallet=wallet,
            )
    except WalletError as error:
        # The surrounding transaction rolls the seat back with the error.
        raise GameError(
            error.code if error.code in ERROR_MESSAGES else "wallet_error", error.message
        ) from error
    return seat


def seat_release(*, table: Table, seat: Seat) -> None:
    """Stand the seat up and release its stake (table row locked by the caller)."""
    seat.left_at = timezone.now()
    seat.save(update_fields=["left_at"])
    wallet_services.stake_release(
        user=seat.user,
        table_id=table.pk,
        amount=table.stake,
        idempotency_key=f"release:table:{table.pk}:seat:{seat.pk}",
    )
