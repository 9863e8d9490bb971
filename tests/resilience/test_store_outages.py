"""Redis stalled longer than a turn, PostgreSQL restarted, during play on the supervised
platform: the clocks stop while players cannot act, and nobody is acted for before the time
he had left, counted from the end of the outage; then the players move themselves."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from datetime import datetime, timedelta

import psutil
import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.models import Game, GameEvent
from tests.resilience.conftest import Platform
from tests.resilience.play import (
    Player,
    books_balance_and_game_verifies,
    games_now,
    play_moves,
    start_game,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

# Longer than a turn, so that every deadline passes while Redis is stalled.
STALL_SECONDS = float(os.environ.get("RESILIENCE_STALL_SECONDS", "40"))
TURN_SECONDS = 15
TABLES = 2
# Clocks read in this process and in the platform's: this much apart at most.
SLACK = timedelta(seconds=1)
db = database_sync_to_async


@db
def moves_made_for_players(table_ids: list[int]) -> int:
    return GameEvent.objects.filter(game__table_id__in=table_ids, automatic=True).count()


@db
def expire_soon(table_ids: list[int], seconds: float) -> None:
    Game.objects.filter(table_id__in=table_ids).update(
        deadline=timezone.now() + timedelta(seconds=seconds)
    )


async def tables_in_play(platform: Platform) -> tuple[list[int], dict[int, list[Player]]]:
    """TABLES two-player games, their players connected, each just past its lead."""
    tables, players = [], {}
    for _table in range(TABLES):
        table, cookies = await start_game(turn_seconds=TURN_SECONDS)
        tables.append(table.pk)
        players[table.pk] = [Player(cookie, platform.port, table.pk) for cookie in cookies]
        for player in players[table.pk]:
            await player.connect()
        await play_moves(players[table.pk], table.pk, 1)
    return tables, players


async def deadlines_moved(
    tables: list[int], owed: dict[int, datetime], timeout: float = 20
) -> dict[int, tuple[int, datetime]]:
    """Wait until every game's deadline is at least what it is owed; the games then."""
    async with asyncio.timeout(timeout):
        while True:
            now = await games_now(tables)
            if all(now[table][1] >= owed[table] - SLACK for table in tables):
                return now
            await asyncio.sleep(0.1)


async def everyone_moves_himself_then_finishes(tables, players) -> None:
    """The waited player of each game moves himself; then the game is played to its end."""
    for table_id in tables:
        await play_moves(players[table_id], table_id, 1)
    assert await moves_made_for_players(tables) == 0
    for table_id in tables:
        game = await play_moves(players[table_id], table_id)
        assert game.status == Game.Status.FINISHED
        for player in players[table_id]:
            await player.close()
        await books_balance_and_game_verifies(game.pk)


async def test_a_redis_stall_longer_than_a_turn_stops_every_clock(live_platform):
    platform = live_platform
    tables, players = await tables_in_play(platform)
    before = await games_now(tables)
    redis = platform.pid("redis")
    stalled_at = timezone.now()
    os.kill(redis, signal.SIGSTOP)
    try:
        # PostgreSQL still answers: every game's deadline passes, and no move is made for anyone.
        stalled = time.monotonic()
        while time.monotonic() - stalled < STALL_SECONDS:
            await asyncio.sleep(0.5)
            assert await games_now(tables) == before
    finally:
        os.kill(redis, signal.SIGCONT)
    resumed_at = timezone.now()

    # Each player has the whole of what was left of his time from the end of the stall, and at
    # least a turn.
    owed = {
        table: resumed_at + max(before[table][1] - stalled_at, timedelta(seconds=TURN_SECONDS - 1))
        for table in tables
    }
    after = await deadlines_moved(tables, owed)
    moved_in = (timezone.now() - resumed_at).total_seconds()
    assert {table: version for table, (version, _) in after.items()} == {
        table: version for table, (version, _) in before.items()
    }
    assert await moves_made_for_players(tables) == 0
    await everyone_moves_himself_then_finishes(tables, players)
    pushed = [(after[table][1] - before[table][1]).total_seconds() for table in tables]
    print(
        f"Redis stalled {STALL_SECONDS:.0f} s: deadlines moved {moved_in:.2f} s after it ended,"
        f" by {min(pushed):.1f}-{max(pushed):.1f} s"
    )


def postgres_processes(platform: Platform) -> list[psutil.Process]:
    postmaster = psutil.Process(platform.pid("postgres"))
    return [postmaster, *postmaster.children(recursive=True)]


async def test_a_postgres_restart_gives_the_waited_players_their_turn_again(live_platform):
    platform = live_platform
    tables, players = await tables_in_play(platform)
    # Each deadline falls due while PostgreSQL is down.
    await expire_soon(tables, 1.0)
    before = await games_now(tables)
    killed = await asyncio.to_thread(platform.kill, "postgres")
    await asyncio.to_thread(platform.wait_back, "postgres", killed)
    back_at = timezone.now()

    owed = dict.fromkeys(tables, back_at + timedelta(seconds=TURN_SECONDS))
    after = await deadlines_moved(tables, owed)
    assert {table: version for table, (version, _) in after.items()} == {
        table: version for table, (version, _) in before.items()
    }
    assert await moves_made_for_players(tables) == 0
    await everyone_moves_himself_then_finishes(tables, players)


async def test_healthz_answers_503_at_once_while_postgres_is_stalled(live_platform):
    platform = live_platform
    stopped = postgres_processes(platform)
    for process in stopped:
        process.suspend()
    try:
        started = time.monotonic()
        status, body = await asyncio.to_thread(platform.health)
        answered_in = time.monotonic() - started
    finally:
        for process in stopped:
            process.resume()
    assert (status, body["database"]) == (503, "fail")
    assert answered_in < 2.5, answered_in
    print(f"/healthz answered 503 in {answered_in:.2f} s with PostgreSQL stalled")
