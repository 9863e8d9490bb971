"""Practice tables: one player against bots, with no stake and no ledger entry.

The player sits at seat 0 and bots fill the other seats. A bot's move goes through the same
command as a person's (``play.game_apply_action``: the same version check, events and
broadcasts); it is sent a short, human-looking delay after the game starts waiting for it.

A practice game goes on only while its player is there. It ends unfinished, with no places and
nothing in his profile, when he stands up («Встать из-за стола»), when he sits down at any
other table (a table he opens or joins, quick play, a rematch, another practice game), and
when he has had no socket open at it for one turn time.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from durak_site.web.client_source import Client
from games import effects, presence
from games.engine import MAX_PLAYERS, MIN_PLAYERS
from games.engine import Game as EngineGame
from games.engine.bots import decide
from games.errors import GameError
from games.models import PRACTICE_PLAYER_SEAT, Bot, BotLevel, Game, Seat, Table
from games.nicknames import bot_nickname

# Modules, not names: tables and practice use each other (seat_take ends a practice game
# elsewhere, practice seats its players through seat_take), each when called.
from games.services import play, tables
from games.services._locks import active_seats, is_int, lock_table


def practice_start(
    *,
    user,
    players: int,
    level: str,
    options: Mapping[str, Any] | None = None,
    client: Client | None = None,
) -> Table:
    """Open a practice table for `user` against `players` - 1 bots of `level`, with these table
    options (RULES.md §7); it starts at once."""
    if not is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameError("invalid_seats")
    if level not in BotLevel.values:
        raise GameError("invalid_bot_level")
    options = tables.checked_options(options, players)
    bots = [_bot_user(level=level, number=number) for number in range(1, players)]
    with transaction.atomic(durable=True):
        table = Table.objects.create(
            stake=0,
            seat_count=players,
            practice=True,
            bot_level=level,
            private=True,  # never in the lobby, and nobody else may watch
            invite_code=secrets.token_urlsafe(9),
            created_by=user,
            **options,
        )
        tables.seat_take(table=table, user=user, position=PRACTICE_PLAYER_SEAT, client=client)
        for position, bot in enumerate(bots, start=1):
            tables.seat_take(table=table, user=bot, position=position)
        play.game_start(table=table)
    return table


def bot_play(*, game_id: int, version: int) -> bool:
    """Play the move of the first bot the game waits for, if the game is still at `version`.

    The bot decides from its seat's view and the public move log, outside any lock; the move
    then goes through the players' command, which refuses it if the game moved on meanwhile.
    """
    game = Game.objects.select_related("table").filter(pk=game_id).first()
    if (
        game is None
        or not game.table.practice
        or game.status != Game.Status.PLAYING
        or game.version != version
    ):
        return False
    engine = EngineGame.from_dict(game.state)
    waiting = [seat for seat in engine.waiting_for if seat != PRACTICE_PLAYER_SEAT]
    if not waiting:
        return False
    seat = min(waiting, key=lambda seat: (seat - engine.attacker) % engine.players)
    log = list(game.events.order_by("version").values("bout", "seat", "action"))
    action = decide(engine.view(seat), log, game.table.bot_level)
    bot = get_user_model()(pk=game.players[seat])
    try:
        play.game_apply_action(game_id=game_id, user=bot, action=action, expected_version=version)
    except GameError as error:
        if error.code in ("stale_version", "game_finished"):
            return False
        raise
    return True


def practice_leave(*, table: Table) -> None:
    """The player stands up from his practice table (locked by the caller): its game ends."""
    _practice_end(table)


def practices_end_elsewhere(*, user, table: Table) -> None:
    """End the practice game the user plays at any table but `table`, where he sits down now
    (its lock held by the caller): he cannot play both, and the bots would play on alone."""
    running = (
        Table.objects.select_for_update(of=("self",))
        .filter(
            practice=True,
            status=Table.Status.PLAYING,
            seat_set__user=user,
            seat_set__position=PRACTICE_PLAYER_SEAT,
            seat_set__left_at__isnull=True,
        )
        .exclude(pk=table.pk)
    )
    for other in running:
        _practice_end(other)


def practices_close_deserted() -> int:
    """End the practice games whose player has had no socket open there for one turn time
    (the games sweep, while the site serves); how many ended."""
    deserted = Seat.objects.filter(
        left_at__isnull=True,
        position=PRACTICE_PLAYER_SEAT,
        table__practice=True,
        table__status=Table.Status.PLAYING,
        disconnected_at__lte=timezone.now() - F("table__turn_seconds") * timedelta(seconds=1),
    ).values_list("table_id", flat=True)
    return sum(_practice_close_if_deserted(table_id=table_id) for table_id in deserted)


def _practice_close_if_deserted(*, table_id: int) -> bool:
    with transaction.atomic(durable=True):
        table = lock_table(table_id)
        seat = active_seats(table).filter(position=PRACTICE_PLAYER_SEAT).first()
        if (
            table.status != Table.Status.PLAYING
            or seat is None
            or seat.disconnected_at is None
            or seat.disconnected_at > timezone.now() - timedelta(seconds=table.turn_seconds)
            or presence.count(table.pk, seat.user_id) > 0
        ):
            return False
        _practice_end(table)
    return True


def _practice_end(table: Table) -> None:
    """End the game at the practice table (locked by the caller) unfinished: nobody moves in it
    again, a bot's move on its way finds it over, and it has no places, so the player's profile
    records nothing of it."""
    now = timezone.now()
    Game.objects.filter(table=table, status=Game.Status.PLAYING).update(
        status=Game.Status.ABANDONED, finished_at=now, deadline=None
    )
    Seat.objects.filter(table=table, left_at__isnull=True).update(left_at=now)
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])
    effects.announce(table=table, lobby=False)


def _bot_user(*, level: str, number: int):
    """The account of bot `number` of `level`, created on first use."""
    bot = Bot.objects.select_related("user").filter(level=level, number=number).first()
    if bot is not None:
        return bot.user
    # Bot accounts' nicknames hold a space, which no signup nickname may, so none is ever taken.
    nickname = bot_nickname(level, number)
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(
                username=nickname, email=f"bot-{level}-{number}@bots.invalid", password=None
            )
            Bot.objects.create(user=user, level=level, number=number)
    except IntegrityError:  # created meanwhile by a concurrent first game
        return Bot.objects.select_related("user").get(level=level, number=number).user
    return user
