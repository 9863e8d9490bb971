"""The whole web tier stops while games wait on their deadlines: no game advances, and when it
is back the deadlines have moved back by the outage and the games go on to their end."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from datetime import datetime

import pytest
from channels.db import database_sync_to_async

from durak_site import heartbeats
from games.models import Game, GameEvent, Seat
from tests.resilience.play import (
    Player,
    books_balance_and_game_verifies,
    play_moves,
    start_game,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

# An outage several turns long shows what a longer one would: set RESILIENCE_OUTAGE_SECONDS=60
# for the length of the experiment of record.
OUTAGE_SECONDS = float(os.environ.get("RESILIENCE_OUTAGE_SECONDS", "20"))
TURN_SECONDS = 10
TABLES = 3
db = database_sync_to_async


@db
def games_now(table_ids: list[int]) -> dict[int, tuple[int, datetime]]:
    """Each table's game: (version, deadline)."""
    return {
        game.table_id: (game.version, game.deadline)
        for game in Game.objects.filter(table_id__in=table_ids)
    }


@db
def moves_and_marks(table_ids: list[int]) -> tuple[int, int]:
    return (
        GameEvent.objects.filter(game__table_id__in=table_ids).count(),
        Seat.objects.filter(table_id__in=table_ids, away=True).count(),
    )


@db
def web_processes_alive() -> int:
    return heartbeats.alive(heartbeats.WEB)


@db
def web_silent_seconds() -> float:
    """How long ago a web process last beat: the platform counts an outage from then."""
    return time.time() - heartbeats.last_beat(heartbeats.WEB)


async def test_no_game_advances_while_the_web_is_down_and_all_go_on_after(web, worker):
    # Nothing but this module's Daphne may serve the test database, or the web is not down.
    async with asyncio.timeout(5):
        while await web_processes_alive() != 1:  # its beats after the test's cache was emptied
            await asyncio.sleep(0.1)
    tables, players = [], {}
    for _table in range(TABLES):
        table, cookies = await start_game(turn_seconds=TURN_SECONDS)
        tables.append(table.pk)
        players[table.pk] = [Player(cookie, web.port, table.pk) for cookie in cookies]
        for player in players[table.pk]:
            await player.connect()

    # Each game has just been given a whole turn, which the outage outlasts.
    for table_id in tables:
        await play_moves(players[table_id], table_id, 1)
    # Killed, as a crash would: its heartbeat is left to go stale. A process that was too
    # starved to beat in the last seconds was already out of reach, for players and clocks alike.
    silent = await web_silent_seconds()
    stopping = time.monotonic()
    web.stop(signal.SIGKILL)
    stopped = time.monotonic()
    before = await games_now(tables)
    counted = await moves_and_marks(tables)
    # Every game's deadline passes, and the next, while no player can reach the site.
    while time.monotonic() - stopped < OUTAGE_SECONDS:
        await asyncio.sleep(0.5)
        assert await moves_and_marks(tables) == counted
    assert await games_now(tables) == before

    web.start()
    restarted = time.monotonic()
    # From the kill until the web serves again.
    outage = restarted - stopping
    for table_id in tables:
        for player in players[table_id]:
            await player.connect()
            await player.state_where(lambda state: True)
    resynced = time.monotonic() - restarted

    # The deadlines moved back by the outage, and every player is shown the new one.
    async with asyncio.timeout(10):
        while True:
            after = await games_now(tables)
            pushed = [(after[table][1] - before[table][1]).total_seconds() for table in tables]
            if all(seconds > outage - 3 for seconds in pushed):
                break
            await asyncio.sleep(0.1)
    pushed_in = time.monotonic() - restarted
    assert all(seconds < outage + silent + 3 for seconds in pushed), (pushed, outage, silent)
    assert {table: version for table, (version, _) in after.items()} == {
        table: version for table, (version, _) in before.items()
    }
    for table_id in tables:
        deadline = after[table_id][1].isoformat()
        for player in players[table_id]:
            await player.state_where(lambda state, deadline=deadline: state["deadline"] == deadline)
            assert not any(each["away"] for each in player.state["players"])

    # The games go on: the players play each of them to its end.
    for table_id in tables:
        game = await play_moves(players[table_id], table_id)
        assert game.status == Game.Status.FINISHED
        for player in players[table_id]:
            await player.close()
        await books_balance_and_game_verifies(game.pk)
    print(
        f"web down {outage:.1f} s (silent {silent:.1f} s before); players back"
        f" {resynced:.2f} s after the restart; deadlines pushed back by"
        f" {min(pushed):.1f}-{max(pushed):.1f} s, {pushed_in:.2f} s after it"
    )
