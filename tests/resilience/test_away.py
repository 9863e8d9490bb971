"""A player who drops out of a two-player game for longer than one turn comes back and plays
his own moves: Daphne and a Celery worker as processes, the players on real WebSockets."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async

from games.engine import Game as EngineGame
from games.models import Game, GameEvent
from tests.resilience.play import (
    Player,
    books_balance_and_game_verifies,
    current_game,
    play_moves,
    start_game,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

TURN_SECONDS = 10
DROP_SECONDS = 15  # longer than one turn: the server marks him away and plays for him
db = database_sync_to_async


@db
def automatic_moves_of(game_id: int, seat: int, after: int) -> list[bool]:
    return list(
        GameEvent.objects.filter(game_id=game_id, seat=seat, version__gt=after)
        .order_by("version")
        .values_list("automatic", flat=True)
    )


async def test_a_defender_back_from_a_drop_longer_than_a_turn_makes_his_own_moves(web, worker):
    table, cookies = await start_game(turn_seconds=TURN_SECONDS)
    game = await current_game(table.pk)
    leader = EngineGame.from_dict(game.state).attacker
    defender = 1 - leader
    players = [Player(cookie, web.port, table.pk) for cookie in cookies]
    for player in players:
        await player.connect()

    # The lead, then the defender's connection drops while the game waits for him.
    game = await play_moves(players, table.pk, 1)
    assert EngineGame.from_dict(game.state).waiting_for == [defender]
    await players[defender].close()
    dropped = time.monotonic()
    watcher = players[leader]
    await watcher.state_where(lambda state: watcher.away(defender), timeout=TURN_SECONDS + 10)
    played_for = await automatic_moves_of(game.pk, defender, game.version)
    assert played_for and all(played_for)  # away: the server took for him
    await asyncio.sleep(max(0.0, DROP_SECONDS - (time.monotonic() - dropped)))

    # His reconnection alone ends away: the first state he gets says so, and the table hears it.
    reconnecting = time.monotonic()
    await players[defender].connect()
    returned = await players[defender].state_where(lambda state: True)
    assert not players[defender].away(defender)
    await watcher.state_where(lambda state: not watcher.away(defender))
    recovered = time.monotonic() - reconnecting

    # From here he is waited for like anyone and answers himself, to the end of the game.
    game = await play_moves(players, table.pk)
    assert game.status == Game.Status.FINISHED
    his_moves = await automatic_moves_of(game.pk, defender, returned["version"])
    assert len(his_moves) >= 3 and not any(his_moves)
    print(f"away ended {recovered:.2f} s after he reconnected")
    for player in players:
        await player.close()
    await books_balance_and_game_verifies(game.pk)
