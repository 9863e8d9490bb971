"""A player who drops out of a two-player game for longer than one turn is played for only when
his deadline passes, is told on his return what the server did, and plays his own moves to the
end: Daphne and a Celery worker as processes, the players on real WebSockets."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

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
DROP_SECONDS = 15  # longer than one turn: his deadline passes while he is gone
db = database_sync_to_async


@db
def moves_of(game_id: int, seat: int, after: int) -> list[tuple[bool, datetime]]:
    """The seat's moves after version `after`: whether the server made each, and when."""
    return list(
        GameEvent.objects.filter(game_id=game_id, seat=seat, version__gt=after)
        .order_by("version")
        .values_list("automatic", "created_at")
    )


async def test_a_defender_dropped_longer_than_a_turn_is_played_for_at_his_deadline_and_told(
    web, worker
):
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
    # Nothing is played for him until his deadline: then the server takes, once.
    await watcher.state_where(
        lambda state: state["version"] > game.version, timeout=TURN_SECONDS + 10
    )
    [(automatic, played_at)] = await moves_of(game.pk, defender, game.version)
    assert automatic and played_at >= game.deadline
    assert not watcher.away(defender)  # one timeout is not two
    await asyncio.sleep(max(0.0, DROP_SECONDS - (time.monotonic() - dropped)))

    # Back: his first state tells him what the server did for him.
    reconnecting = time.monotonic()
    await players[defender].connect()
    returned = await players[defender].state_where(lambda state: True)
    told = time.monotonic() - reconnecting
    assert returned["server_moves"] == {"take": 1, "pass": 0, "lead": 0}
    assert not players[defender].away(defender)

    # From here he answers himself, to the end of the game; his first move clears the count.
    game = await play_moves(players, table.pk)
    assert game.status == Game.Status.FINISHED
    his_moves = await moves_of(game.pk, defender, returned["version"])
    assert len(his_moves) >= 3 and not any(automatic for automatic, _at in his_moves)
    print(f"told what the server did {told:.2f} s after he reconnected")
    for player in players:
        await player.close()
    await books_balance_and_game_verifies(game.pk)
