"""Presence: every open table socket counts, and a socket whose process died stops counting."""

from __future__ import annotations

import random
import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from games import presence, services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import GameEvent, Seat
from games.selectors import tables
from tests.games.test_services import bot_move, expire_deadline, seated_game

pytestmark = pytest.mark.django_db(transaction=True)


def crashed_socket(table_id: int, user_id: int, *, seconds_ago: float) -> None:
    """A socket recorded by a process that then died: it was last seen `seconds_ago`."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.zadd(presence.key(table_id, user_id), {"dead-process-socket": time.time() - seconds_ago})
    client.close()


def connected_flags(game) -> list[bool]:
    state = tables.table_state_for(table=game.table, user=None)
    return [player["connected"] for player in state["players"]]


def test_each_socket_counts_until_it_closes():
    game, users = seated_game(2)
    for tab in ("tab-1", "tab-2"):
        services.presence_connect(table_id=game.table_id, user=users[0], connection=tab)
    services.presence_connect(table_id=game.table_id, user=users[0], connection="tab-1")  # again
    assert presence.count(game.table_id, users[0].pk) == 2
    assert connected_flags(game) == [True, False]

    services.presence_disconnect(table_id=game.table_id, user=users[0], connection="tab-1")
    assert Seat.objects.get(table=game.table, position=0).disconnected_at is None
    assert connected_flags(game) == [True, False]
    services.presence_disconnect(table_id=game.table_id, user=users[0], connection="tab-2")
    assert presence.count(game.table_id, users[0].pk) == 0
    assert Seat.objects.get(table=game.table, position=0).disconnected_at is not None
    assert connected_flags(game) == [False, False]


def test_many_quick_connects_and_disconnects_leave_exactly_the_open_sockets():
    game, users = seated_game(2)
    rng = random.Random(7)
    sockets = [f"socket-{n}" for n in range(1000)]
    kept = set(rng.sample(sockets, 3))
    # Sockets open and close in any interleaving (many processes), each closing after it opened.
    pending = {name: ["open"] + ([] if name in kept else ["close"]) for name in sockets}
    while pending:
        name = rng.choice(list(pending))
        step = pending[name].pop(0)
        if not pending[name]:
            del pending[name]
        if step == "open":
            presence.add(game.table_id, users[0].pk, name)
        else:
            left = presence.remove(game.table_id, users[0].pk, name)
            assert left == presence.count(game.table_id, users[0].pk) >= 0
    assert presence.count(game.table_id, users[0].pk) == len(kept)
    for name in kept:
        services.presence_disconnect(table_id=game.table_id, user=users[0], connection=name)
    assert presence.count(game.table_id, users[0].pk) == 0
    assert Seat.objects.get(table=game.table, position=0).disconnected_at is not None


def test_a_socket_of_a_crashed_process_stops_counting_within_a_minute():
    game, users = seated_game(2)
    crashed_socket(game.table_id, users[0].pk, seconds_ago=presence.HEARTBEAT_SECONDS)
    assert presence.count(game.table_id, users[0].pk) == 1
    assert connected_flags(game) == [True, False]

    crashed_socket(game.table_id, users[0].pk, seconds_ago=presence.STALE_SECONDS + 1)
    assert presence.STALE_SECONDS <= 60
    assert presence.count(game.table_id, users[0].pk) == 0
    assert connected_flags(game) == [False, False]


def test_a_heartbeat_keeps_a_socket_counted_and_brings_back_one_given_up():
    game, users = seated_game(2)
    services.presence_connect(table_id=game.table_id, user=users[0], connection="tab")
    crashed_socket(game.table_id, users[0].pk, seconds_ago=presence.STALE_SECONDS + 1)
    services.presence_heartbeat(table_id=game.table_id, user=users[0], connection="tab")
    assert presence.count(game.table_id, users[0].pk) == 1

    Seat.objects.filter(table=game.table, position=1).update(disconnected_at=timezone.now())
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.zadd(presence.key(game.table_id, users[1].pk), {"tab": time.time() - 120})
    client.close()
    services.presence_heartbeat(table_id=game.table_id, user=users[1], connection="tab")
    assert presence.count(game.table_id, users[1].pk) == 1
    assert Seat.objects.get(table=game.table, position=1).disconnected_at is None


def test_a_player_whose_process_crashed_is_noted_gone_and_waited_for_until_his_deadline():
    game, users = seated_game(2)
    # Another table, whose players stay connected, is looked at in the same sweep.
    other, other_users = seated_game(3)
    leader = EngineGame.from_dict(game.state).waiting_for[0]
    for user in users:
        services.presence_connect(table_id=game.table_id, user=user, connection="tab")
    for user in other_users:
        services.presence_connect(table_id=other.table_id, user=user, connection="tab")
    seats = Seat.objects.filter(table=game.table)
    assert all(seat.disconnected_at is None for seat in seats)
    # The leader's process dies: his socket never closes, it just stops being refreshed.
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.zadd(presence.key(game.table_id, users[leader].pk), {"tab": time.time() - 61})
    client.close()
    services.presence_heartbeat(table_id=game.table_id, user=users[1 - leader], connection="tab")

    assert services.games_sweep() == 0
    lost = Seat.objects.get(table=game.table, position=leader)
    assert lost.disconnected_at is not None and not lost.away
    assert Seat.objects.get(table=game.table, position=1 - leader).disconnected_at is None
    assert not Seat.objects.filter(table=other.table, disconnected_at__isnull=False).exists()
    assert connected_flags(game)[leader] is False

    # Gone for ten turns, he still has his whole lead: only its deadline plays for him.
    seats.filter(position=leader).update(
        disconnected_at=timezone.now() - timedelta(seconds=10 * game.table.turn_seconds)
    )
    assert services.games_sweep() == 0
    game.refresh_from_db()
    assert game.version == 0 and not Seat.objects.filter(table=game.table, away=True).exists()


def test_his_own_state_alone_counts_the_server_moves_for_him_by_kind_until_he_acts():
    game, users = seated_game(3, turn_seconds=30, throw_seconds=10)
    sleeper = EngineGame.from_dict(game.state).waiting_for[0]
    others = [user for position, user in enumerate(users) if position != sleeper]
    # Deadlines pass until the server has played for him three times (a lead, takes, passes).
    for _deadline in range(200):
        game.refresh_from_db()
        if Seat.objects.get(table=game.table, position=sleeper).timeouts_in_a_row == 3:
            break
        engine = EngineGame.from_dict(game.state)
        if sleeper in engine.waiting_for:
            expire_deadline(game)
            assert services.game_timeout(game_id=game.pk, version=game.version)
        else:
            bot_move(game, users)
    played_for = GameEvent.objects.filter(game=game, seat=sleeper)
    assert played_for.count() == 3 and all(event.automatic for event in played_for)
    kinds = {"take": 0, "pass": 0, "lead": 0}
    for event in played_for:
        kinds[{"attack": "lead"}.get(event.action["type"], event.action["type"])] += 1
    assert kinds["lead"] >= 1

    assert tables.table_state_for(table=game.table, user=users[sleeper])["server_moves"] == kinds
    for user in others:  # nobody else sees them: each his own, here none
        assert tables.table_state_for(table=game.table, user=user)["server_moves"] == {
            "take": 0,
            "pass": 0,
            "lead": 0,
        }
    assert tables.table_state_for(table=game.table, user=None)["server_moves"] is None

    # His reconnection leaves them to be told; his own move clears them.
    services.presence_connect(table_id=game.table_id, user=users[sleeper], connection="tab")
    assert tables.table_state_for(table=game.table, user=users[sleeper])["server_moves"] == kinds
    for _move in range(200):
        game.refresh_from_db()
        engine = EngineGame.from_dict(game.state)
        if sleeper in engine.waiting_for:
            break
        bot_move(game, users)
    services.game_apply_action(
        game_id=game.pk,
        user=users[sleeper],
        action=choose_action(engine, sleeper),
        expected_version=game.version,
    )
    state = tables.table_state_for(table=game.table, user=users[sleeper])
    assert state["server_moves"] == {"take": 0, "pass": 0, "lead": 0}
