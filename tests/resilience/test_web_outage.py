"""The whole web tier stops while games wait on their deadlines: no game advances, and when it
is back the deadlines have moved back by the outage and the games go on to their end; a player
whose page comes back late still has a throw-in window to move himself."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from datetime import datetime, timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from websockets.exceptions import ConnectionClosed

from durak_site.ops import heartbeats
from durak_site.sockets import outage_closes
from games import services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, GameEvent, Seat, Table
from tests.games.conftest import STAKE, create_player
from tests.players import session_cookie
from tests.resilience.play import (
    Player,
    books_balance_and_game_verifies,
    games_now,
    play_moves,
    start_game,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

# An outage several turns long shows what a longer one would: set RESILIENCE_OUTAGE_SECONDS=60
# for the length of the experiment of record.
OUTAGE_SECONDS = float(os.environ.get("RESILIENCE_OUTAGE_SECONDS", "20"))
TURN_SECONDS = 10
# A player back this long after a restart has less than the throw-in window left of the turn
# the restart gave him.
LATE_THROW_SECONDS = 6
LATE_RETURN_SECONDS = 8
TABLES = 3
db = database_sync_to_async


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


@db
def nearly_spent(table_id: int, seconds: float, throw_seconds: int) -> Game:
    """The table's throw-in window set, and its game's turn left with `seconds` to run."""
    Table.objects.filter(pk=table_id).update(throw_seconds=throw_seconds)
    Game.objects.filter(table_id=table_id).update(
        deadline=timezone.now() + timedelta(seconds=seconds)
    )
    return Game.objects.get(table_id=table_id)


@db
def resumed(game_id: int) -> datetime:
    """When the game's clock started again after the outage."""
    return Game.objects.values_list("resumed_at", flat=True).get(pk=game_id)


@db
def moves_of(game_id: int) -> list[tuple[int, bool]]:
    """(seat, made by the server) of each move of the game."""
    return list(
        GameEvent.objects.filter(game_id=game_id)
        .order_by("version")
        .values_list("seat", "automatic")
    )


async def test_a_player_back_late_from_a_long_web_outage_still_moves_himself(web, worker):
    async with asyncio.timeout(5):
        while await web_processes_alive() != 1:
            await asyncio.sleep(0.1)
    # Both are at the table before the game starts: neither counts as absent from the deal.
    users = await db(lambda: [create_player(), create_player()])()
    table = await db(services.table_create)(user=users[0], stake=STAKE, seats=2)
    await db(Table.objects.filter(pk=table.pk).update)(turn_seconds=TURN_SECONDS)
    players = [Player(await db(session_cookie)(user), web.port, table.pk) for user in users]
    for player in players:
        await player.connect()
        await player.state_where(lambda state: True)
    await db(services.table_join)(table_id=table.pk, user=users[1])
    # The web tier dies with the leader's turn nearly spent (yet not within the beats the
    # platform still counts the web alive after its last), and stays down for longer than a
    # turn.
    game = await nearly_spent(table.pk, 2 * heartbeats.BEAT_SECONDS + 1, LATE_THROW_SECONDS)
    leader = EngineGame.from_dict(game.state).waiting_for[0]
    web.stop(signal.SIGKILL)
    await asyncio.sleep(OUTAGE_SECONDS)
    web.start()
    restarted = time.monotonic()
    restarted_at = timezone.now()
    other = players[1 - leader]
    await other.connect()
    await other.state_where(lambda state: True)

    # The leader's page comes back late in its backoff, with less than a throw-in window left
    # of the turn counted from the restart, and takes his time to move: past that turn.
    await asyncio.sleep(max(0.0, restarted + LATE_RETURN_SECONDS - time.monotonic()))
    returner = players[leader]
    await returner.connect()
    await returner.state_where(lambda state: True)
    assert await moves_of(game.pk) == [], (
        await games_now([table.pk]),
        await resumed(game.pk),
        restarted_at,
        timezone.now(),
    )
    # Past the turn counted from the moment the clocks started again.
    resumed_at = await resumed(game.pk)
    await asyncio.sleep(max(0.0, (resumed_at - timezone.now()).total_seconds() + TURN_SECONDS + 1))
    await returner.act(choose_action(EngineGame.from_dict(game.state), leader), game.version)
    await returner.version_at_least(game.version + 1)
    assert await moves_of(game.pk) == [(leader, False)]
    for player in players:
        await player.close()


async def test_a_web_process_that_stops_tells_its_sockets_it_restarts(web, worker):
    table, cookies = await start_game(turn_seconds=TURN_SECONDS)
    player = Player(cookies[0], web.port, table.pk)
    await player.connect()
    await player.state_where(lambda state: True)
    web.stop(signal.SIGTERM)  # as a supervisor or a deploy stops it
    web.start()
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await player.socket.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == outage_closes.CLOSE_RESTARTING
