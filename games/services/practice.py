"""Practice tables: one player against bots, with no stake and no ledger entry.

The player sits at seat 0 and bots fill the other seats. A bot's move goes through the same
command as a person's (``play.game_apply_action``: the same version check, events and
broadcasts); it is sent a short, human-looking delay after the game starts waiting for it.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from durak_site.clients import Client
from games.engine import MAX_PLAYERS, MIN_PLAYERS
from games.engine import Game as EngineGame
from games.engine.bots import decide
from games.errors import GameError
from games.models import PRACTICE_PLAYER_SEAT, Bot, BotLevel, Game, Table
from games.nicknames import bot_nickname
from games.services import play
from games.services._locks import is_int
from games.services.tables import seat_take


def practice_start(*, user, players: int, level: str, client: Client | None = None) -> Table:
    """Open a practice table for `user` against `players` - 1 bots of `level`; it starts at once."""
    if not is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameError("invalid_seats")
    if level not in BotLevel.values:
        raise GameError("invalid_bot_level")
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
        )
        seat_take(table=table, user=user, position=PRACTICE_PLAYER_SEAT, client=client)
        for position, bot in enumerate(bots, start=1):
            seat_take(table=table, user=bot, position=position)
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
