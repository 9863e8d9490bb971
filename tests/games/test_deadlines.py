"""Deadlines fire from the indexed deadline column, by one loop at a time under a Redis lock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import deadlines, presence
from games.engine import Game as EngineGame
from games.models import Game, GameEvent
from tests.games.test_services import expire_deadline, seated_game, snapshot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_loop_running():
    client = presence.redis_client()
    client.delete(deadlines.lock_name())
    yield
    client.delete(deadlines.lock_name())


def test_only_games_whose_deadline_passed_are_acted_on_and_twice_acts_once():
    due, _users = seated_game(2)
    waiting, _others = seated_game(2)
    leader = EngineGame.from_dict(due.state).waiting_for[0]
    expire_deadline(due)
    untouched = snapshot(waiting)

    assert deadlines.fire_due() == 1
    assert deadlines.fire_due() == 0
    event = GameEvent.objects.get(game=due)
    assert (event.version, event.seat, event.automatic) == (1, leader, True)
    assert snapshot(waiting) == untouched
    due.refresh_from_db()
    assert due.deadline > timezone.now()  # the next deadline is set in the same transaction


def test_the_loop_fires_what_falls_due_while_it_runs_then_lets_go_of_its_lock():
    game, _users = seated_game(2)
    ticks = []

    def sleep(seconds: float) -> None:
        # The deadline passes while the loop waits for it.
        assert 0 < seconds <= deadlines.TICK_SECONDS
        ticks.append(seconds)
        if len(ticks) == 2:
            expire_deadline(game)

    assert deadlines.run_loop(seconds=0.5, sleep=sleep) == 1
    assert GameEvent.objects.get(game=game).automatic
    assert not presence.redis_client().exists(deadlines.lock_name())


def test_a_second_loop_steps_aside_while_one_holds_the_lock_and_takes_over_once_it_lapses():
    game, _users = seated_game(2)
    expire_deadline(game)
    killed = presence.redis_client().lock(deadlines.lock_name(), timeout=deadlines.LOCK_SECONDS)
    assert killed.acquire(blocking=False)  # a loop whose worker then died

    assert deadlines.run_loop(seconds=0, sleep=lambda _seconds: None) is None
    assert snapshot(game)[0] == 0

    presence.redis_client().delete(deadlines.lock_name())  # its lock lapses
    assert deadlines.run_loop(seconds=0.01, sleep=lambda _seconds: None) == 1
    assert Game.objects.get(pk=game.pk).version == 1


def test_one_failing_game_does_not_stop_the_others(monkeypatch):
    broken, _users = seated_game(2)
    fine, _others = seated_game(2)
    expire_deadline(broken)
    expire_deadline(fine)
    Game.objects.filter(pk=broken.pk).update(deadline=timezone.now() - timedelta(seconds=9))
    Game.objects.filter(pk=broken.pk).update(state={"not": "a game"})

    assert deadlines.fire_due() == 1
    assert Game.objects.get(pk=fine.pk).version == 1
    assert Game.objects.get(pk=broken.pk).version == 0
