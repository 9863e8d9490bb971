"""Post-game analysis («Разбор партии»): a player's decisions in a finished game, each judged by
the Мастер's search from what he could see then (``games.engine.analysis``).

The first request queues the analysis; a Celery task runs it, noting its progress, and keeps
the result. Only the game's own players may ask, and only once the game has ended.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import effects
from games.engine.analysis import Decision, analyse_seat
from games.errors import GameError
from games.models import Game, GameAnalysis
from games.selectors.replay import replay_game

logger = logging.getLogger(__name__)

# The costliest moves shown on the board, and the least cost worth showing there.
COSTLIEST_SHOWN = 3
COST_SHOWN_FROM = 0.01
# What of the player's view a costly move is shown with.
BOARD_KEYS = (
    "seat",
    "hand",
    "hand_sizes",
    "talon_size",
    "trump_card",
    "trump_suit",
    "table",
    "attacker",
    "defender",
    "taking",
    "out",
)


def analysis_request(*, game: Game, user) -> GameAnalysis:
    """The player's analysis of the game, queued if this is the first request (or the last
    one failed). Refused unless the game has ended and the user played in it."""
    if user.pk not in game.players:
        raise GameError("not_a_player")
    if game.status != Game.Status.FINISHED:
        raise GameError("analysis_game_not_over")
    with transaction.atomic():
        analysis, created = GameAnalysis.objects.get_or_create(game=game, user=user)
        if not created and analysis.status == GameAnalysis.Status.FAILED:
            analysis.status, analysis.done, analysis.total = GameAnalysis.Status.QUEUED, 0, 0
            analysis.save(update_fields=["status", "done", "total"])
            created = True
        if created:
            effects.schedule_analysis(analysis_id=analysis.pk)
    return analysis


def analysis_run(*, analysis_id: int) -> bool:
    """Judge the decisions of an analysis and keep them; False if it is done or failed.

    A running one is run again: its task comes back only when the worker that held it died
    (or after the broker's visibility timeout, far beyond an analysis's budget)."""
    claimed = GameAnalysis.objects.filter(
        pk=analysis_id, status__in=[GameAnalysis.Status.QUEUED, GameAnalysis.Status.RUNNING]
    ).update(status=GameAnalysis.Status.RUNNING)
    if not claimed:
        return False
    analysis = GameAnalysis.objects.select_related("game").get(pk=analysis_id)
    game = analysis.game
    try:
        start = replay_game(game)[0]
        events = list(game.events.order_by("version").values("seat", "action", "bout", "automatic"))

        def progress(done: int, total: int) -> None:
            GameAnalysis.objects.filter(pk=analysis_id).update(done=done, total=total)

        decisions = analyse_seat(
            start,
            events,
            game.players.index(analysis.user_id),
            deals=settings.GAME_ANALYSIS_DEALS,
            seconds=settings.GAME_ANALYSIS_SECONDS,
            seed=analysis_id,
            progress=progress,
        )
    except Exception:
        logger.exception("the analysis %s failed", analysis_id)
        GameAnalysis.objects.filter(pk=analysis_id).update(status=GameAnalysis.Status.FAILED)
        return False
    GameAnalysis.objects.filter(pk=analysis_id).update(
        status=GameAnalysis.Status.DONE,
        decisions=[
            {
                "version": decision.version,
                "durak_played": round(decision.durak_played, 4),
                "durak_best": round(decision.durak_best, 4),
            }
            for decision in decisions
        ],
        costliest=_costliest(decisions),
        finished_at=timezone.now(),
    )
    return True


def _costliest(decisions: list[Decision]) -> list[dict]:
    costly = sorted(
        (decision for decision in decisions if decision.cost >= COST_SHOWN_FROM),
        key=lambda decision: -decision.cost,
    )[:COSTLIEST_SHOWN]
    return [
        {
            "version": decision.version,
            "board": {key: decision.view[key] for key in BOARD_KEYS},
            "played": decision.played,
            "best": decision.best,
            "durak_played": round(decision.durak_played, 4),
            "durak_best": round(decision.durak_best, 4),
        }
        for decision in sorted(costly, key=lambda decision: decision.version)
    ]
