"""No game's clock runs out while no web process is alive, and players who all drop at once
get a grace before the server plays for them."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from durak_site.ops import heartbeats
from games import deadlines, effects, presence, services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, GameEvent, Seat
from games.services import clocks
from tests.games.conftest import create_player
from tests.games.test_deadlines import no_loop_running  # noqa: F401 - fixture
from tests.games.test_services import expire_deadline, play_out, seated_game, snapshot
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db(transaction=True)


def loop_round() -> int:
    """One short run of the deadline loop; how many games it acted on."""
    return deadlines.run_loop(seconds=0.01, sleep=lambda _seconds: None)


@pytest.fixture(autouse=True)
def no_outage_noted():
    presence.redis_client().delete(clocks.outage_key())
    yield
    presence.redis_client().delete(clocks.outage_key())


def test_no_deadline_fires_and_no_practice_game_ends_while_no_web_process_is_alive(
    web_serving,
):
    game, users = seated_game(2)
    leader = EngineGame.from_dict(game.state).waiting_for[0]
    expire_deadline(game)
    services.presence_connect(table_id=game.table_id, user=users[leader], connection="tab")
    before = snapshot(game)
    practice = services.practice_start(user=create_player(), players=2, level="novice")
    Seat.objects.filter(table=practice, position=0).update(
        disconnected_at=timezone.now() - timedelta(seconds=practice.turn_seconds + 1)
    )

    web_serving.stop()
    assert loop_round() == 0
    assert services.deadlines_fire() == 0
    assert services.games_sweep() == 0
    assert snapshot(game) == before
    assert Game.objects.get(table=practice).status == Game.Status.PLAYING
    assert presence.redis_client().exists(clocks.outage_key())


def test_when_the_web_is_back_the_deadlines_move_back_by_the_outage_and_the_tables_hear_it(
    web_serving, monkeypatch
):
    game, users = seated_game(2)
    leader = EngineGame.from_dict(game.state).waiting_for[0]
    services.presence_connect(table_id=game.table_id, user=users[leader], connection="tab")
    gone = Seat.objects.get(table=game.table, position=1 - leader)
    Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(hours=1))
    Seat.objects.filter(pk=gone.pk).update(disconnected_at=timezone.now() - timedelta(seconds=60))
    finished, _others = seated_game(2)
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED, deadline=None)
    game.refresh_from_db()
    gone.refresh_from_db()
    deadline, left_at = game.deadline, gone.disconnected_at

    web_serving.stop()
    assert loop_round() == 0
    # The outage lasts 40 s.
    began = float(presence.redis_client().hget(clocks.outage_key(), "began"))
    presence.redis_client().hset(clocks.outage_key(), "began", began - 40)
    announced = []
    monkeypatch.setattr(
        effects, "announce", lambda *, table, lobby: announced.append((table.pk, lobby))
    )
    back = heartbeats.Beating(heartbeats.WEB)
    try:
        assert loop_round() == 0
    finally:
        back.stop()
    game.refresh_from_db()
    gone.refresh_from_db()
    pushed = (game.deadline - deadline).total_seconds()
    assert 40 <= pushed < 42
    assert game.version == 0  # nothing was played
    # He left before the outage: his time without a socket goes on from where it stood then.
    assert 40 <= (gone.disconnected_at - left_at).total_seconds() < 42
    assert Game.objects.get(pk=finished.pk).deadline is None
    assert not presence.redis_client().exists(clocks.outage_key())
    # Every playing table is sent its state with the new deadline.
    assert announced == [(game.table_id, False)]


def test_an_open_rematch_waits_out_an_outage_of_the_web_and_moves_back_by_its_length(
    web_serving,
):
    game, users = seated_game(2)
    game = play_out(game, users)
    first, second = users
    services.rematch_confirm(game_id=game.pk, user=first)
    held = user_balance(user=first)
    # Another table's window closed well before the outage: it stays closed.
    closed, closed_users = seated_game(2)
    closed = play_out(closed, closed_users)
    long_ago = timezone.now() - timedelta(seconds=100)
    Game.objects.filter(pk=closed.pk).update(rematch_until=long_ago)

    web_serving.stop()
    assert loop_round() == 0
    # The outage lasts 40 s, and the window ran out while it went on.
    began = float(presence.redis_client().hget(clocks.outage_key(), "began"))
    presence.redis_client().hset(clocks.outage_key(), "began", began - 40)
    ran_out = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk=game.pk).update(rematch_until=ran_out)
    assert services.games_sweep() == 0  # no stake goes back while nobody can reach the site
    assert user_balance(user=first) == held

    back = heartbeats.Beating(heartbeats.WEB)
    try:
        assert loop_round() == 0
        pushed = (Game.objects.get(pk=game.pk).rematch_until - ran_out).total_seconds()
        assert 40 <= pushed < 42
        assert Game.objects.get(pk=closed.pk).rematch_until == long_ago
        assert services.games_sweep() == 0
        # The other player confirms in the time given back, and the new game starts.
        services.rematch_confirm(game_id=game.pk, user=second)
    finally:
        back.stop()
    assert Game.objects.get(table=game.table, number=2).status == Game.Status.PLAYING


def test_an_outage_counts_from_the_last_beat_but_not_from_one_older_than_the_loop_could_miss(
    web_serving,
):
    web_serving.stop()
    web = heartbeats.key(heartbeats.WEB)
    for silent_for in (heartbeats.ALIVE_SECONDS + 0.2, 100):
        presence.redis_client().delete(clocks.outage_key())
        presence.redis_client().zadd(web, {"web-1": time.time() - silent_for})
        assert not clocks.watch()
        began = float(presence.redis_client().hget(clocks.outage_key(), "began"))
        expected = time.time() - min(silent_for, heartbeats.ALIVE_SECONDS)
        assert abs(began - expected) < 0.5


def test_an_outage_counts_only_as_long_as_a_loop_watched_it(web_serving):
    game, _users = seated_game(2)
    deadline = Game.objects.get(pk=game.pk).deadline
    # A loop noted an outage 30 s ago and saw it go on until 20 s ago, then died.
    presence.redis_client().hset(
        clocks.outage_key(), mapping={"began": time.time() - 30, "seen": time.time() - 20}
    )
    assert clocks.watch()
    pushed = (Game.objects.get(pk=game.pk).deadline - deadline).total_seconds()
    assert 9.5 < pushed < 10.5


def test_a_player_who_lost_his_connection_in_the_outage_counts_as_gone_since_its_end():
    game, users = seated_game(2)
    Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(hours=1))
    game.refresh_from_db()
    during = timezone.now() - timedelta(seconds=5)
    Seat.objects.filter(table=game.table, position=0).update(disconnected_at=during)
    absent = Seat.objects.get(table=game.table, position=1)
    Seat.objects.filter(pk=absent.pk).update(disconnected_at=game.started_at)  # since the deal
    started = timezone.now()
    clocks.games_resume(seconds=600)
    assert started <= Seat.objects.get(table=game.table, position=0).disconnected_at
    assert Seat.objects.get(pk=absent.pk).disconnected_at == game.started_at


def drop_together(game: Game, users: list, *, seconds_ago: float, apart: float = 0) -> None:
    """Every player connects, then all lose their connections `seconds_ago`, `apart` apart, in
    a game that began an hour ago."""
    Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(hours=1))
    for position, user in enumerate(users):
        services.presence_connect(table_id=game.table_id, user=user, connection=f"tab{position}")
        services.presence_disconnect(table_id=game.table_id, user=user, connection=f"tab{position}")
        Seat.objects.filter(table=game.table, position=position).update(
            disconnected_at=timezone.now() - timedelta(seconds=seconds_ago + position * apart)
        )


def test_everyone_dropping_at_once_gets_a_grace_before_the_server_plays_for_them():
    game, users = seated_game(2)
    leader = EngineGame.from_dict(game.state).waiting_for[0]
    grace = settings.TABLE_DROP_GRACE_SECONDS
    turn = game.table.turn_seconds
    assert grace > turn + 1
    drop_together(game, users, seconds_ago=turn + 1)
    expire_deadline(game)
    assert not services.game_timeout(game_id=game.pk, version=0)
    game.refresh_from_db()
    # The deadline now waits for the end of the grace, and nothing is played meanwhile.
    expected = timezone.now() + timedelta(seconds=grace - turn - 1)
    assert abs((game.deadline - expected).total_seconds()) < 2
    assert services.games_sweep() == 0
    assert snapshot(game)[0] == 0

    # The grace is over: the leader's move is played, and the defender has his whole turn.
    drop_together(game, users, seconds_ago=grace + 1)
    expire_deadline(game)
    assert services.game_timeout(game_id=game.pk, version=0)
    assert GameEvent.objects.get(game=game, version=1).seat == leader
    assert services.games_sweep() == 0
    assert_waits_a_whole_turn(game)


def assert_waits_a_whole_turn(game: Game) -> None:
    game.refresh_from_db()
    assert game.version == 1
    left = (game.deadline - timezone.now()).total_seconds()
    assert game.table.turn_seconds - 2 < left <= game.table.turn_seconds


def test_players_who_drop_one_after_another_get_no_grace():
    game, users = seated_game(2)
    window = settings.TABLE_DROP_WINDOW_SECONDS
    drop_together(game, users, seconds_ago=game.table.turn_seconds + 1, apart=window + 1)
    expire_deadline(game)
    assert services.game_timeout(game_id=game.pk, version=0)
    assert services.games_sweep() == 0
    assert_waits_a_whole_turn(game)


def test_a_stalemate_waits_for_the_grace_of_players_who_dropped_at_once():
    game, users = seated_game(3)
    drop_together(game, users, seconds_ago=1)
    Seat.objects.filter(table=game.table).update(away=True)
    expire_deadline(game)
    assert not services.game_timeout(game_id=game.pk, version=0)
    game.refresh_from_db()
    assert (game.status, game.stalemate, game.version) == (Game.Status.PLAYING, False, 0)

    drop_together(game, users, seconds_ago=settings.TABLE_DROP_GRACE_SECONDS + 1)
    Seat.objects.filter(table=game.table).update(away=True)
    expire_deadline(game)
    assert services.game_timeout(game_id=game.pk, version=0)
    game.refresh_from_db()
    assert (game.status, game.stalemate) == (Game.Status.FINISHED, True)


def test_the_loop_beats_while_it_runs():
    heartbeats.forget(heartbeats.DEADLINE_LOOP)
    assert heartbeats.alive(heartbeats.DEADLINE_LOOP) == 0
    started = time.time()
    loop_round()
    assert heartbeats.last_beat(heartbeats.DEADLINE_LOOP) >= started
    assert heartbeats.alive(heartbeats.DEADLINE_LOOP) == 1


def test_after_an_outage_a_waited_player_has_a_turn_and_a_throw_in_window_from_his_return():
    game, users = seated_game(2)
    table = game.table
    leader = EngineGame.from_dict(game.state).waiting_for[0]
    # His socket lost in the outage still counts as open when he comes back.
    services.presence_connect(table_id=table.pk, user=users[leader], connection="lost")
    # The turn was nearly spent when the platform went down for 2 s.
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timedelta(seconds=1))
    clocks.games_resume(seconds=2)
    game.refresh_from_db()
    restart = game.resumed_at
    assert game.deadline == restart + timedelta(seconds=table.turn_seconds)

    # He comes back with less than a throw-in window left of that turn.
    Game.objects.filter(pk=game.pk).update(
        resumed_at=restart - timedelta(seconds=table.turn_seconds - 2),
        deadline=timezone.now() + timedelta(seconds=2),
    )
    back = timezone.now()
    services.presence_connect(table_id=table.pk, user=users[leader], connection="tab")
    game.refresh_from_db()
    assert game.deadline >= back + timedelta(seconds=table.throw_seconds)
    # The other player's return gives nothing: the game does not wait for him.
    extended = game.deadline
    services.presence_connect(table_id=table.pk, user=users[1 - leader], connection="tab")
    assert Game.objects.get(pk=game.pk).deadline == extended

    # Once his turn counted from the restart is over, a return gives nothing.
    Game.objects.filter(pk=game.pk).update(
        resumed_at=timezone.now() - timedelta(seconds=table.turn_seconds + 1),
        deadline=timezone.now() + timedelta(seconds=1),
    )
    late = Game.objects.get(pk=game.pk).deadline
    services.presence_connect(table_id=table.pk, user=users[leader], connection="tab3")
    assert Game.objects.get(pk=game.pk).deadline == late
    # His own move ends what the outage owed.
    services.game_apply_action(
        game_id=game.pk,
        user=users[leader],
        action=choose_action(EngineGame.from_dict(game.state), leader),
        expected_version=0,
    )
    assert Game.objects.get(pk=game.pk).resumed_at is None


def test_an_outage_noted_in_postgresql_stops_the_clocks_until_made_up_once(web_serving):
    game, _users = seated_game(2)
    expire_deadline(game)
    due_at = Game.objects.get(pk=game.pk).deadline
    # Redis was away for 60 s: a watcher noted it in PostgreSQL.
    now = time.time()
    assert clocks.note_stop(now - 60, now, redis=False)
    assert not clocks.running()
    assert services.deadlines_fire() == 0
    assert services.games_sweep() == 0

    assert loop_round() == 0
    game.refresh_from_db()
    assert game.version == 0
    assert 60 <= (game.deadline - due_at).total_seconds() < 62
    assert clocks.running()

    # A note of the same outage that arrives late moves nothing again.
    moved_to = game.deadline
    assert clocks.note_stop(now - 60, now - 0.5, redis=False)
    assert loop_round() == 0
    assert Game.objects.get(pk=game.pk).deadline == moved_to
    assert clocks.running()
