"""Deadlines fire from the indexed deadline column, by one loop at a time under a Redis lock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import deadlines, presence, services
from games.engine import Game as EngineGame
from games.models import Game, GameEvent, Seat
from tests.games.test_services import (
    bot_move,
    expire_deadline,
    seated_game,
    snapshot,
    wait_for_seat,
)

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

    assert services.deadlines_fire() == 1
    assert services.deadlines_fire() == 0
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

    assert services.deadlines_fire() == 1
    assert Game.objects.get(pk=fine.pk).version == 1
    assert Game.objects.get(pk=broken.pk).version == 0


# --- the disconnect charter (RULES.md §5) ----------------------------------------------------


def seconds_left(game: Game) -> float:
    game.refresh_from_db()
    return (game.deadline - timezone.now()).total_seconds()


def gone_long_ago(game: Game, user) -> None:
    """The player's last socket closed, and that was ten turns ago."""
    services.presence_connect(table_id=game.table_id, user=user, connection="tab")
    services.presence_disconnect(table_id=game.table_id, user=user, connection="tab")
    Seat.objects.filter(table=game.table, user=user).update(
        disconnected_at=timezone.now() - timedelta(seconds=10 * game.table.turn_seconds)
    )


def test_a_disconnected_player_is_never_acted_for_before_his_deadline():
    game, users = seated_game(2)
    for user in users:
        services.presence_connect(table_id=game.table_id, user=user, connection="tab")
    defender = 1 - EngineGame.from_dict(game.state).waiting_for[0]
    bot_move(game, users)  # the lead: the game waits for the defender
    gone_long_ago(game, users[defender])
    game.refresh_from_db()
    waiting = snapshot(game)
    assert seconds_left(game) > game.table.turn_seconds - 2  # his whole turn

    # Neither the loop nor the sweep plays for him while his deadline has not passed.
    assert services.deadlines_fire() == 0
    assert services.games_sweep() == 0
    assert snapshot(game) == waiting
    seat = Seat.objects.get(table=game.table, position=defender)
    assert (seat.away, seat.server_moves) == (False, {})

    expire_deadline(game)
    assert services.deadlines_fire() == 1
    take = GameEvent.objects.get(game=game, version=waiting[0] + 1)
    assert (take.seat, take.action, take.automatic) == (defender, {"type": "take"}, True)
    seat.refresh_from_db()
    assert (seat.away, seat.server_moves) == (False, {"take": 1})


def wait_for_turn(game: Game, users: list, position: int) -> EngineGame:
    """As `wait_for_seat`, until the game waits for `position` to lead or defend; when it waits
    for him as a thrower meanwhile, his throw-in window passes."""
    for _step in range(100):
        engine = wait_for_seat(game, users, position)
        if engine.deadline_kind == "turn":
            return engine
        assert seconds_left(game) <= game.table.throw_seconds
        expire_deadline(game)
        assert services.deadlines_fire() == 1
    raise AssertionError("the game never waited for his turn")


@pytest.mark.parametrize("connected", [True, False], ids=["connected", "disconnected"])
def test_two_timeouts_in_a_row_shrink_his_turns_to_the_throw_window_until_he_acts(connected):
    game, users = seated_game(2, turn_seconds=30, throw_seconds=10)
    sleeper = 1 - EngineGame.from_dict(game.state).waiting_for[0]
    for position, user in enumerate(users):
        services.presence_connect(table_id=game.table_id, user=user, connection=f"tab{position}")
    if not connected:
        gone_long_ago(game, users[sleeper])
    seat = Seat.objects.get(table=game.table, position=sleeper)
    for timeouts in (1, 2):
        engine = wait_for_seat(game, users, sleeper)
        # Until the second timeout, he gets the whole time of each of his waits.
        whole = 30 if engine.deadline_kind == "turn" else 10
        assert whole - 2 < seconds_left(game) <= whole
        expire_deadline(game)
        assert services.deadlines_fire() == 1
        seat.refresh_from_db()
        assert (seat.timeouts_in_a_row, seat.away) == (timeouts, timeouts == 2)

    # Away: his lead or defence waits only the throw-in window, and nothing is played sooner.
    wait_for_turn(game, users, sleeper)
    assert 8 < seconds_left(game) <= 10
    assert services.deadlines_fire() == 0 and services.games_sweep() == 0
    assert Seat.objects.get(pk=seat.pk).away

    # He acts himself: the mark and the count clear, and his next turn has its whole time.
    bot_move(game, users)
    seat.refresh_from_db()
    assert (seat.server_moves, seat.away) == ({}, False)
    for _step in range(100):
        engine = wait_for_seat(game, users, sleeper)
        if engine.deadline_kind == "turn":
            break
        bot_move(game, users)  # he throws in or passes himself
    assert 28 < seconds_left(game) <= 30


def test_i_am_back_gives_a_shrunk_turn_its_whole_time_and_clears_the_count():
    game, users = seated_game(2, turn_seconds=30, throw_seconds=10)
    sleeper = 1 - EngineGame.from_dict(game.state).waiting_for[0]
    for _timeout in range(2):
        wait_for_seat(game, users, sleeper)
        expire_deadline(game)
        assert services.deadlines_fire() == 1
    wait_for_turn(game, users, sleeper)
    assert seconds_left(game) <= 10
    version = game.version

    assert services.seat_back(table_id=game.table_id, user=users[sleeper])
    assert 28 < seconds_left(game) <= 30
    assert game.version == version  # nothing was played
    seat = Seat.objects.get(table=game.table, position=sleeper)
    assert (seat.away, seat.server_moves) == (False, {})
    assert not services.seat_back(table_id=game.table_id, user=users[sleeper])
