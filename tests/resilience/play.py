"""Players at a table on the supervised platform, who reconnect and resync when it fails."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import datetime

from channels.db import database_sync_to_async
from django.core.management import call_command
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from games import services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, Table
from tests.games.conftest import STAKE, create_player
from tests.players import session_cookie

db = database_sync_to_async


@db
def games_now(table_ids: list[int]) -> dict[int, tuple[int, datetime]]:
    """Each table's game: (version, deadline)."""
    return {
        game.table_id: (game.version, game.deadline)
        for game in Game.objects.filter(table_id__in=table_ids)
    }


# The server's own limit is 10 messages a second per socket; players stay under it.
SEND_INTERVAL = 0.11
# How long a player waits for a move to show before he reconnects and looks again.
MOVE_TIMEOUT = 8.0


class Player:
    """One browser tab on the table socket that reconnects whenever the socket fails."""

    def __init__(self, cookie: str, port: int, table_id: int) -> None:
        self.cookie, self.port, self.table_id = cookie, port, table_id
        self.socket = None
        self.version = -1
        self.state: dict | None = None  # the latest state received on the current socket
        self.sent_at = 0.0
        self.reconnects = 0
        # The close code of each socket the server closed under this player.
        self.close_codes: list[int | None] = []

    async def connect(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        self.state = None
        while True:
            try:
                self.socket = await connect(
                    f"ws://127.0.0.1:{self.port}/ws/table/{self.table_id}/",
                    origin=f"http://127.0.0.1:{self.port}",
                    additional_headers={"Cookie": self.cookie},
                    open_timeout=5,
                )
                return
            except (OSError, InvalidHandshake, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    async def version_at_least(self, version: int, timeout: float = 60) -> int:
        """Read frames until the state reaches `version`; reconnect (and resync) on a failure."""
        deadline = time.monotonic() + timeout
        while self.version < version:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"the state stayed at {self.version}, not {version}")
            try:
                message = json.loads(await asyncio.wait_for(self.socket.recv(), remaining))
            except ConnectionClosed as closed:
                self.closed_by_server(closed)
                await self.connect(max(remaining, 1))
                continue
            if message["type"] == "state":
                self.version = max(self.version, message["version"])
                self.state = message
        return self.version

    async def state_where(self, check: Callable[[dict], bool], timeout: float = 30) -> dict:
        """Read states until one satisfies `check` (the one held may already); it."""
        async with asyncio.timeout(timeout):
            while self.state is None or not check(self.state):
                message = json.loads(await self.socket.recv())
                if message["type"] == "state":
                    self.version = max(self.version, message["version"])
                    self.state = message
        return self.state

    def away(self, seat: int) -> bool:
        """Whether the state held shows `seat` marked away."""
        return next(each for each in self.state["players"] if each["seat"] == seat)["away"]

    async def act(self, action: dict, version: int) -> None:
        await asyncio.sleep(max(0.0, self.sent_at + SEND_INTERVAL - time.monotonic()))
        self.sent_at = time.monotonic()
        try:
            await self.socket.send(
                json.dumps({"type": "act", "action": action, "version": version})
            )
        except ConnectionClosed as closed:
            self.closed_by_server(closed)
            await self.connect()

    def closed_by_server(self, closed: ConnectionClosed) -> None:
        self.close_codes.append(closed.rcvd.code if closed.rcvd else None)
        self.reconnects += 1

    async def reconnect(self) -> None:
        """A fresh socket, whose first state is the current one (a lost broadcast is caught up)."""
        await self.close()
        self.reconnects += 1
        await self.connect()

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()


def new_game(*, turn_seconds: int = 30) -> tuple[Table, list[str]]:
    """A 2-player stake game that has just started; returns the table and the seats' cookies."""
    users = [create_player(), create_player()]
    table = services.table_create(user=users[0], stake=STAKE, seats=2)
    Table.objects.filter(pk=table.pk).update(turn_seconds=turn_seconds)
    services.table_join(table_id=table.pk, user=users[1])
    return table, [session_cookie(user) for user in users]


start_game = db(new_game)


@db
def current_game(table_id: int) -> Game:
    return Game.objects.filter(table_id=table_id).latest("pk")


async def play_moves(players: list[Player], table_id: int, moves: int | None = None) -> Game:
    """Play up to `moves` moves (all, when None) with the bots' choices; returns the game."""
    played = 0
    while moves is None or played < moves:
        game = await current_game(table_id)
        if game.status != Game.Status.PLAYING:
            return game
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        player = players[seat]
        try:
            await player.version_at_least(game.version, timeout=MOVE_TIMEOUT)
            await player.act(choose_action(engine, seat), game.version)
            # The move, or the worker's timeout if the move raced with it, advances the game.
            await player.version_at_least(game.version + 1, timeout=MOVE_TIMEOUT)
        except TimeoutError:
            # A move or a broadcast lost while a server was down: look again with a fresh socket.
            await player.reconnect()
            continue
        played += 1
    return await current_game(table_id)


def check_books_and_game(game_id: int) -> None:
    """``ledger_check`` is clean and the game replays to its stored state and payouts."""
    call_command("ledger_check")
    call_command("verify_game", game_id)


books_balance_and_game_verifies = db(check_books_and_game)
