"""Celery tasks: thin callers of the services, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.tasks.tick", ignore_result=True)
def tick(tournament_id: int | None = None) -> int:
    """Start, seat, finish and make whatever tournaments are due (all, or one after its game)."""
    return services.tournaments_tick(tournament_id=tournament_id)
