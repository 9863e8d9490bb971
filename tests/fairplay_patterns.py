"""Play patterns built on purpose for the fair-play tests: games ended at once in a chosen
order through the real settlement, random ordinary play, and a player who never moves."""

from __future__ import annotations

import random
from unittest import mock

from django.db import transaction

from durak_site.web.client_source import Client
from games import services
from games.engine import Game as EngineGame
from games.models import Game
from games.services import play
from games.services._locks import lock_game
from tests.games.test_services import bot_move, expire_deadline

STAKE = 10_000


def client_number(number: int) -> Client:
    """A device of its own: its own address, browser and user agent."""
    return Client(
        address=f"10.1.{number // 200}.{number % 200 + 1}",
        browser_id=f"browser-{number:014d}",
        user_agent_hash=f"{number:016x}",
    )


def finish_game(users: list, *, order: list[int] | None = None, clients=None) -> Game:
    """Seat ``users`` at a new table (stakes held) and end its game at once with the places in
    the seat order given, through the real settlement of the bank in the ledger."""
    clients = clients or [None] * len(users)
    table = services.table_create(user=users[0], stake=STAKE, seats=len(users), client=clients[0])
    for user, client in zip(users[1:], clients[1:], strict=True):
        services.table_join(table_id=table.pk, user=user, client=client)
    places = [[seat] for seat in (order or range(len(users)))]
    with (
        mock.patch.object(play, "final_places", lambda engine, stalemate: places),
        transaction.atomic(),
    ):
        table, game = lock_game(Game.objects.get(table=table).pk)
        engine = EngineGame.from_dict(game.state)
        play._game_finish(play.Change(table, game, engine, play.seated(table)))
    return game


def ordinary_play(players: list, games: int, seed: int = 2026) -> None:
    """Random tables of 2 to 4 of ``players``, each from his own device, random places."""
    rng = random.Random(seed)
    devices = {user.pk: client_number(number) for number, user in enumerate(players)}
    for _game in range(games):
        users = rng.sample(players, rng.randint(2, 4))
        order = rng.sample(range(len(users)), len(users))
        finish_game(users, order=order, clients=[devices[user.pk] for user in users])


def play_with_sleeper(first, second, sleeper=None) -> Game:
    """A real two-player game where everyone plays for himself, except ``sleeper``, who lets
    every deadline pass: the server plays each of his moves when its time is up."""
    table = services.table_create(user=first, stake=STAKE, seats=2)
    services.table_join(table_id=table.pk, user=second)
    game = Game.objects.get(table=table)
    users = [first, second]
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            return game
        waiting = EngineGame.from_dict(game.state).waiting_for
        if sleeper is not None and any(users[seat] == sleeper for seat in waiting):
            expire_deadline(game)
            assert services.game_timeout(game_id=game.pk, version=game.version)
        else:
            bot_move(game, users)
