"""What a command leaves to do once it commits: broadcasts and timers, and nothing else."""

from __future__ import annotations

import pytest
from django.db import transaction

from durak_site.celery import app as celery_app
from games import effects, services, tasks
from games.effects import Announcement, PlayerNotice, Publication
from games.engine import Game as EngineGame
from games.services import GameError, notices
from tests.games.conftest import STAKE, create_player
from tests.games.test_services import bot_move, play_out, seated_game

pytestmark = pytest.mark.django_db


def effects_of(callbacks: list) -> list:
    """The game effects among a commit's callbacks (the wallet counts its postings there too)."""
    return [callback for callback in callbacks if type(callback).__module__ == effects.__name__]


def test_a_move_publishes_its_states_once_and_queues_one_notice_of_the_turns_it_begins(
    django_capture_on_commit_callbacks,
):
    game, users = seated_game(3)
    before = game.version
    waiting_before = EngineGame.from_dict(game.state).waiting_for
    with django_capture_on_commit_callbacks() as callbacks:
        bot_move(game, users)
    game.refresh_from_db()
    assert game.version == before + 1
    [publication, notice] = effects_of(callbacks)
    assert isinstance(publication, Publication)
    # The push task is queued after the commit, for the players the game now waits on anew,
    # and expires with their deadline.
    begun = [s for s in EngineGame.from_dict(game.state).waiting_for if s not in waiting_before]
    assert begun
    assert notice == PlayerNotice(
        game.table_id,
        tuple(game.players[seat] for seat in begun),
        notices.TURN,
        game.deadline.timestamp(),
    )
    # The deadline is the game's indexed column alone (games.deadlines): nothing is queued.
    assert publication.snapshot.game.deadline == game.deadline
    assert publication.events_from == before
    assert [event["version"] for event in publication.events] == [before + 1]
    assert publication.lobby is False


def test_a_refused_move_schedules_nothing(django_capture_on_commit_callbacks):
    game, users = seated_game(2)
    engine = EngineGame.from_dict(game.state)
    leader = engine.waiting_for[0]
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(GameError):
        services.game_apply_action(
            game_id=game.pk,
            user=users[1 - leader],
            action=engine.timeout_action(leader),
            expected_version=game.version,
        )
    assert callbacks == []


def test_a_closed_last_socket_schedules_nothing_and_only_tells_the_table(
    django_capture_on_commit_callbacks,
):
    # Nobody is played for before his deadline: a drop starts no timer of its own.
    game, users = seated_game(2, turn_seconds=20)
    services.presence_connect(table_id=game.table_id, user=users[0], connection="tab")
    with django_capture_on_commit_callbacks() as callbacks:
        services.presence_disconnect(table_id=game.table_id, user=users[0], connection="tab")
    assert effects_of(callbacks) == [Announcement(game.table_id, lobby=False)]
    assert game.table.seat_set.get(user=users[0], left_at__isnull=True).disconnected_at


def test_a_rematch_confirmation_and_its_deal_tell_the_table_and_not_the_lobby(
    django_capture_on_commit_callbacks,
):
    # The finished game's table left the lobby when that game started; only its sockets care.
    game, users = seated_game(2)
    game = play_out(game, users)
    with django_capture_on_commit_callbacks() as callbacks:
        services.rematch_confirm(game_id=game.pk, user=users[0])
    assert effects_of(callbacks) == [
        Announcement(game.table_id, lobby=False),
        PlayerNotice(
            game.table_id,
            (users[1].pk,),
            notices.REMATCH,
            game.rematch_until.timestamp(),
            (("nickname", users[0].username),),
        ),
    ]
    # Withdrawing the confirmation leaves the table as closed as it was.
    with django_capture_on_commit_callbacks() as callbacks:
        services.table_leave(table_id=game.table_id, user=users[0])
    assert effects_of(callbacks) == [Announcement(game.table_id, lobby=False)]
    # Nor does the rematch's deal.
    services.rematch_confirm(game_id=game.pk, user=users[0])
    with django_capture_on_commit_callbacks() as callbacks:
        services.rematch_confirm(game_id=game.pk, user=users[1])
    [dealt] = [callback for callback in callbacks if isinstance(callback, Publication)]
    assert dealt.snapshot.game.number == 2 and not dealt.lobby
    # Both players hear that the new game is dealt; the first mover's turn began with the deal.
    [started] = [callback for callback in callbacks if isinstance(callback, PlayerNotice)]
    assert started.kind == notices.START
    assert set(started.user_ids) == {users[0].pk, users[1].pk}
    assert started.expires_at == dealt.snapshot.game.deadline.timestamp()


def test_the_last_player_leaving_an_open_table_takes_it_out_of_the_lobby(
    django_capture_on_commit_callbacks,
):
    creator = create_player()
    table = services.table_create(user=creator, stake=STAKE, seats=2)
    with django_capture_on_commit_callbacks() as callbacks:
        services.table_leave(table_id=table.pk, user=creator)
    assert effects_of(callbacks) == [Announcement(table.pk, lobby=True)]


def test_the_effects_send_tasks_the_worker_knows_by_name():
    assert tasks.bot_move.name == effects.BOT_MOVE_TASK
    assert effects.BOT_MOVE_TASK in celery_app.tasks
    assert effects.NOTICE_TASK in celery_app.tasks


def test_a_site_without_push_queues_no_notice(django_capture_on_commit_callbacks, settings):
    game, users = seated_game(3)
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    with django_capture_on_commit_callbacks() as callbacks:
        bot_move(game, users)
    assert [type(callback) for callback in callbacks] == [Publication]


def test_a_move_is_never_part_of_a_larger_transaction():
    game, users = seated_game(2)
    engine = EngineGame.from_dict(game.state)
    leader = engine.waiting_for[0]
    with transaction.atomic(), pytest.raises(RuntimeError):
        services.game_apply_action(
            game_id=game.pk,
            user=users[leader],
            action=engine.timeout_action(leader),
            expected_version=game.version,
        )
