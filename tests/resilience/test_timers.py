"""Timers keep firing after a Redis restart under a busy worker, and without beat."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from durak_site.celery import app as celery_app
from games import services
from games.models import ClockStop, Game, Seat, Table
from tests.games.conftest import STAKE, create_player
from tests.resilience.play import check_books_and_game, new_game

pytestmark = pytest.mark.django_db(transaction=True)

HELD_TASKS = 3
# How soon a deadline that falls due must fire.
FIRE_WITHIN_SECONDS = 5.0


def hold_tasks(platform, count: int) -> None:
    """Queue `count` tasks with a long countdown and wait until the worker holds them."""
    since = len(platform.log())
    for _ in range(count):
        # A game that does not exist: the bot's move does nothing when it finally runs.
        celery_app.send_task(
            "games.tasks.bot_move",
            args=(10**9, 0),
            countdown=60,
            queue=settings.CELERY_TASK_DEFAULT_QUEUE,
        )
    platform.wait_for(
        lambda: platform.log()[since:].count("games.tasks.bot_move[") >= count,
        "the worker to receive the held tasks",
    )


def started_game() -> Game:
    """A 2-player game whose long turn leaves its deadline to the test."""
    table, _cookies = new_game(turn_seconds=300)
    return Game.objects.get(table=table)


def make_due(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now())


def fired_after(platform, game: Game) -> float:
    """Wait until the worker acted on `game`'s deadline; returns when it did (monotonic)."""
    platform.wait_for(
        lambda: Game.objects.get(pk=game.pk).version > game.version,
        f"the deadline of game {game.pk} to fire",
        timeout=30,
    )
    return time.monotonic()


def test_a_redis_restart_under_a_worker_holding_tasks_keeps_the_worker_and_its_deadlines(
    live_platform,
):
    platform = live_platform
    game = started_game()
    hold_tasks(platform, HELD_TASKS)
    worker = platform.pid("worker")
    since = len(platform.log())

    killed = platform.kill("redis")
    # A deadline falls due while Redis is down: players cannot act, so the clocks stop, and the
    # waited player has a whole turn again once Redis is back. The worker notes the outage
    # within a beat of it; a deadline due before that may still fire.
    platform.wait_for(
        lambda: ClockStop.objects.filter(pk=ClockStop.ROW, began__isnull=False).exists(),
        "the outage to be noted",
    )
    make_due(game)
    platform.wait_back("redis", killed)
    restarted = timezone.now()
    platform.wait_for(
        lambda: (
            Game.objects.get(pk=game.pk).deadline
            >= restarted + timedelta(seconds=game.table.turn_seconds - 1)
        ),
        "the deadline to move back a turn",
    )
    assert Game.objects.get(pk=game.pk).version == game.version
    # The loop goes on: a deadline that falls due now fires.
    make_due(game)
    back_at = time.monotonic()
    fired_at = fired_after(platform, game)

    log = platform.log()[since:]
    assert "Restoring" in log  # the worker held unacknowledged tasks when the connection broke
    assert "Unrecoverable error" not in log
    assert platform.pid("worker") == worker, "the worker died with Redis"
    assert fired_at - back_at <= FIRE_WITHIN_SECONDS
    print(f"after a Redis restart a due deadline fired in {fired_at - back_at:.2f} s")
    game.refresh_from_db()
    assert game.events.filter(automatic=True).exists()
    check_books_and_game(game.pk)


def test_without_beat_deadlines_fire_and_abandoned_tables_close(live_platform):
    platform = live_platform
    game = started_game()
    abandoned = services.table_create(user=create_player(), stake=STAKE, seats=2)
    beat = platform.pid("beat")
    # A hung beat: alive for the supervisor, silent for everyone else.
    os.kill(beat, signal.SIGSTOP)
    try:
        # Even a worker restarted while beat is gone takes the loop up again.
        since = len(platform.log())
        platform.wait_back("worker", platform.kill("worker"))
        platform.wait_for(lambda: platform.worker_ready(since), "the new worker to be ready")
        ready_at = time.monotonic()
        make_due(game)
        # The new worker may first make up for the moment the old one was gone, which gives the
        # game a whole turn again (games.services.clocks): then the deadline is made due once more.
        platform.wait_for(
            lambda: (
                Game.objects.get(pk=game.pk).version > game.version
                or Game.objects.get(pk=game.pk).deadline > timezone.now() + timedelta(seconds=1)
            ),
            f"the deadline of game {game.pk} to fire or move back",
            timeout=30,
        )
        if Game.objects.get(pk=game.pk).version == game.version:
            make_due(game)
        fired_at = fired_after(platform, game)
        Seat.objects.filter(table=abandoned).update(
            joined_at=timezone.now() - timedelta(seconds=settings.TABLE_OPEN_TTL + 1)
        )
        platform.wait_for(
            lambda: Table.objects.get(pk=abandoned.pk).status == Table.Status.CLOSED,
            "the abandoned table to close",
            timeout=30,
        )
        closed_at = time.monotonic()

        # Health tells staff the scheduler is missing, and that the timers are still served.
        def scheduler_missing() -> tuple[int | None, dict] | None:
            reply = platform.health()
            return reply if reply[1].get("scheduler") == "fail" else None

        status, health = platform.wait_for(
            scheduler_missing, "/healthz to miss the scheduler", every=0.2
        )
        assert status == 200 and health["worker"] == "ok" and health["deadlines"] == "ok"
    finally:
        os.kill(beat, signal.SIGCONT)
    print(
        f"beat gone: a deadline fired {fired_at - ready_at:.2f} s after the worker was ready, "
        f"an abandoned table closed {closed_at - fired_at:.2f} s later"
    )
    check_books_and_game(game.pk)
