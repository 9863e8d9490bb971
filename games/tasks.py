"""Celery tasks: thin callers of the services, safe to run twice."""

from __future__ import annotations

import threading

from celery import shared_task, signals

from durak_site.ops import json_logs as site_logging
from games import broadcast, deadlines, services
from games.services import clocks, notices


@signals.worker_process_init.connect
def send_through_own_loop(**kwargs) -> None:
    """A worker's pool process keeps its broadcasts' Redis connections between sends."""
    broadcast.send_through_own_loop()


@signals.worker_ready.connect
def start_deadline_loop(**kwargs) -> None:
    """Each worker keeps the deadline loop running, in turn with the others (games.deadlines),
    and watches Redis and PostgreSQL for outages (games.services.clocks); its broadcasts, and
    those of tasks run in this process, keep their Redis connections."""
    broadcast.send_through_own_loop()
    threading.Thread(target=deadlines.keep_running, name="deadline-loop", daemon=True).start()
    threading.Thread(target=clocks.keep_watching, name="outage-watch", daemon=True).start()


@shared_task(name="games.tasks.bot_move", ignore_result=True)
def bot_move(game_id: int, version: int) -> bool:
    """Play a bot's move at a practice table if the game is still at `version`."""
    site_logging.bind(game=game_id, version=version)
    return services.bot_play(game_id=game_id, version=version)


@shared_task(name="games.tasks.notify_players", ignore_result=True)
def notify_players(notices_queued: list[list]) -> int:
    """Push each notice about a table, as ``(table_id, user_ids, kind, expires_at, params)``,
    to those of its users who do not see the table; the devices reached."""
    return sum(
        notices.players_notify(
            table_id=table_id, user_ids=user_ids, kind=kind, expires_at=expires_at, params=params
        )
        for table_id, user_ids, kind, expires_at, params in notices_queued
    )


@shared_task(name="games.tasks.analyse_game", ignore_result=True)
def analyse_game(analysis_id: int) -> bool:
    """Judge a player's decisions in a finished game, if his analysis is still queued."""
    return services.analysis_run(analysis_id=analysis_id)


@shared_task(name="games.tasks.find_puzzles", ignore_result=True)
def find_puzzles() -> int:
    """Search the latest finished games' endgames for puzzles."""
    return services.puzzles_find_new()
