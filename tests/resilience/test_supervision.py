"""``kill -9`` of each process of ``launcher run`` and of each embedded server: the supervisor
brings its processes back, the servers' owner (the test run) starts them again, and a game in
progress finishes, with the books balanced."""

from __future__ import annotations

import asyncio
import time

import pytest

from games.models import Game
from tests.resilience.conftest import CHILDREN
from tests.resilience.play import (
    Player,
    books_balance_and_game_verifies,
    play_moves,
    start_game,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

MOVES_BETWEEN_KILLS = 2


async def test_every_killed_process_comes_back_and_the_game_in_progress_finishes(live_platform):
    platform = live_platform
    table, cookies = await start_game()
    players = [Player(cookie, platform.port, table.pk) for cookie in cookies]
    for player in players:
        await player.connect()
    recovery = {}
    for name in (*CHILDREN, "redis", "postgres"):
        await play_moves(players, table.pk, MOVES_BETWEEN_KILLS)
        killed_at = time.monotonic()
        old_pid = await asyncio.to_thread(platform.kill, name)
        await asyncio.to_thread(platform.wait_back, name, old_pid)
        await asyncio.to_thread(platform.wait_for, platform.healthy, "the platform to answer")
        recovery[name] = time.monotonic() - killed_at
        assert f"{name} exited with code -9" in platform.log() or name in ("redis", "postgres")
    game = await play_moves(players, table.pk)
    for player in players:
        await player.close()
    assert game.status == Game.Status.FINISHED
    close_codes = [code for player in players for code in player.close_codes]
    # An outage closes with the retryable 4503 (or drops the connection), never with 1011.
    assert 1011 not in close_codes, close_codes
    await books_balance_and_game_verifies(game.pk)
    for name, seconds in recovery.items():
        print(f"kill -9 {name}: serving again after {seconds:.1f} s")
    print(f"sockets closed under the players with codes {close_codes}")
