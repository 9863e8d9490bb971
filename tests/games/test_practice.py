"""Practice tables: one player against bots, no stake, bots moving through the players' command."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games import broadcast, services
from games.effects import BotMove
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import PRACTICE_PLAYER_SEAT as PLAYER_SEAT
from games.models import BankDistribution, Bot, Game, GameEvent, Rating, Seat, Table
from games.selectors import stats, tables
from games.services import GameError
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player
from wallet import limits
from wallet.models import LedgerTransaction
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db


def practice_game(players: int = 4, level: str = "amateur", user=None) -> tuple[Game, object]:
    user = user or create_player()
    table = services.practice_start(user=user, players=players, level=level)
    return Game.objects.get(table=table), user


def step(game: Game, user) -> None:
    """The next move: the player's (by the Любитель) or the first bot's the game waits for."""
    game.refresh_from_db()
    engine = EngineGame.from_dict(game.state)
    if PLAYER_SEAT in engine.waiting_for:
        services.game_apply_action(
            game_id=game.pk,
            user=user,
            action=choose_action(engine, PLAYER_SEAT),
            expected_version=game.version,
        )
    else:
        assert services.bot_play(game_id=game.pk, version=game.version)


def test_a_practice_game_starts_at_once_with_bots_and_touches_no_money():
    user = create_player()
    ledger = LedgerTransaction.objects.count()
    game, user = practice_game(players=4, level="master", user=user)
    table = game.table
    assert table.practice and table.bot_level == "master" and table.stake == 0
    assert table.status == Table.Status.PLAYING and game.bank == 0
    seats = Seat.objects.filter(table=table, left_at__isnull=True).order_by("position")
    assert [seat.user_id for seat in seats] == game.players
    assert game.players[PLAYER_SEAT] == user.pk
    bots = Bot.objects.filter(user_id__in=game.players[1:])
    assert sorted(bot.number for bot in bots) == [1, 2, 3]
    assert {bot.level for bot in bots} == {"master"}
    assert LedgerTransaction.objects.count() == ledger
    assert user_balance(user=user) == OPENING_BALANCE


def test_a_practice_game_played_to_the_end_writes_places_but_no_ledger_entry_and_no_rating():
    user = create_player()
    ledger = LedgerTransaction.objects.count()
    game, user = practice_game(players=3, level="novice", user=user)
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            break
        step(game, user)
    assert game.status == Game.Status.FINISHED
    assert game.distribution.count() == 3
    assert LedgerTransaction.objects.count() == ledger
    assert not Rating.objects.exists()
    assert user_balance(user=user) == OPENING_BALANCE
    assert game.table.status == Table.Status.CLOSED
    call_command("ledger_check")  # a practice game has nothing to settle


def test_a_bot_moves_through_the_players_command_and_a_stale_version_does_nothing():
    game, user = practice_game(players=2)
    engine = EngineGame.from_dict(game.state)
    if PLAYER_SEAT in engine.waiting_for:
        step(game, user)
        game.refresh_from_db()
    version = game.version
    assert services.bot_play(game_id=game.pk, version=version)
    event = GameEvent.objects.get(game=game, version=version + 1)
    assert event.seat != PLAYER_SEAT and not event.automatic
    assert services.bot_play(game_id=game.pk, version=version) is False  # moved on
    assert GameEvent.objects.filter(game=game).count() == version + 1


def test_a_move_that_leaves_the_game_waiting_for_a_bot_sends_its_move_after_a_human_delay(
    django_capture_on_commit_callbacks,
):
    game, user = practice_game(players=2)
    for _ in range(200):
        game.refresh_from_db()
        engine = EngineGame.from_dict(game.state)
        if PLAYER_SEAT not in engine.waiting_for:
            step(game, user)
            continue
        with django_capture_on_commit_callbacks() as callbacks:
            step(game, user)
        game.refresh_from_db()
        if PLAYER_SEAT in EngineGame.from_dict(game.state).waiting_for:
            continue
        moves = [callback for callback in callbacks if isinstance(callback, BotMove)]
        assert len(moves) == 1
        assert (moves[0].game_id, moves[0].version) == (game.pk, game.version)
        assert 0.5 <= moves[0].countdown <= 1.5
        return
    raise AssertionError("the player never handed the turn to a bot")


def assert_ended_unfinished(game: Game, user) -> None:
    """The practice game is over without a result: nobody moves in it again, and the player's
    profile records nothing of it."""
    game.refresh_from_db()
    assert (game.status, game.deadline) == (Game.Status.ABANDONED, None)
    assert game.finished_at is not None
    assert Table.objects.get(pk=game.table_id).status == Table.Status.CLOSED
    assert not Seat.objects.filter(table=game.table, left_at__isnull=True).exists()
    version = game.version
    assert not services.bot_play(game_id=game.pk, version=version)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    assert not services.game_timeout(game_id=game.pk, version=version)
    assert GameEvent.objects.filter(game=game).count() == version
    assert not BankDistribution.objects.filter(game=game).exists()
    assert stats.player_history(user=user, viewer=user, practice=True) == []
    assert stats.player_summary(user=user, viewer=user)["games"] == 0
    state = tables.table_state_for(table=game.table, user=user)
    assert (state["game"]["status"], state["view"], state["result"]) == ("abandoned", None, None)
    with pytest.raises(GameError) as refused:
        services.rematch_confirm(game_id=game.pk, user=user)
    assert refused.value.code == "rematch_closed"


def test_standing_up_ends_the_practice_game_and_records_nothing():
    game, user = practice_game(players=3)
    for _move in range(5):
        step(game, user)
    services.table_leave(table_id=game.table_id, user=user)
    assert_ended_unfinished(game, user)
    # The state its sockets are sent shows no board, and gives nobody a move to make.
    state = tables.table_state_for(table=Table.objects.get(pk=game.table_id), user=user)
    assert state["view"] is None
    assert broadcast.mover(state) == (PLAYER_SEAT, False)
    with pytest.raises(GameError) as refused:
        services.table_leave(table_id=game.table_id, user=user)
    assert refused.value.code == "not_seated"


@pytest.mark.parametrize("elsewhere", ["table_create", "table_join", "quick_play", "practice"])
def test_sitting_down_at_any_other_table_ends_the_practice_game_he_plays(elsewhere):
    game, user = practice_game(players=2)
    host = create_player()
    open_table = services.table_create(user=host, stake=STAKE, seats=3)
    if elsewhere == "table_create":
        table = services.table_create(user=user, stake=STAKE, seats=2)
    elif elsewhere == "table_join":
        table = Table.objects.get(
            pk=services.table_join(table_id=open_table.pk, user=user).table_id
        )
    elif elsewhere == "quick_play":
        table = services.quick_play(user=user, stake=STAKE, seats=3)
        assert table.pk == open_table.pk
    else:
        table = services.practice_start(user=user, players=2, level="novice")
    assert_ended_unfinished(game, user)
    assert Seat.objects.filter(table=table, user=user, left_at__isnull=True).exists()


def test_a_refused_seat_elsewhere_leaves_the_practice_game_running():
    game, user = practice_game(players=2)
    with pytest.raises(GameError) as refused:
        services.table_create(user=user, stake=OPENING_BALANCE * 2, seats=2)
    assert refused.value.code == "insufficient_funds"
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    assert Seat.objects.get(table=game.table, user=user).left_at is None


def test_a_practice_game_whose_player_has_no_socket_for_one_turn_ends():
    game, user = practice_game(players=2)
    turn = timedelta(seconds=game.table.turn_seconds)
    seat = Seat.objects.get(table=game.table, user=user)
    assert seat.disconnected_at is not None  # no page open yet
    services.presence_connect(table_id=game.table_id, user=user, connection="tab")
    services.presence_disconnect(table_id=game.table_id, user=user, connection="tab")
    assert services.games_sweep() == 0  # gone for less than a turn
    # A socket still open keeps it going, whatever the seat says.
    services.presence_connect(table_id=game.table_id, user=user, connection="other-tab")
    Seat.objects.filter(pk=seat.pk).update(disconnected_at=timezone.now() - turn)
    assert services.games_sweep() == 0
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING

    services.presence_disconnect(table_id=game.table_id, user=user, connection="other-tab")
    Seat.objects.filter(pk=seat.pk).update(disconnected_at=timezone.now() - turn)
    assert services.games_sweep() == 1
    assert_ended_unfinished(game, user)


def test_bots_never_sit_at_a_table_with_stakes():
    game, _user = practice_game(players=2)
    bot = Bot.objects.get(user_id=game.players[1]).user
    other = create_player()
    table = services.table_create(user=other, stake=10_000, seats=2)
    with pytest.raises(GameError) as refused:
        services.table_join(table_id=table.pk, user=bot)
    assert refused.value.code == "bots_practice_only"
    assert not Seat.objects.filter(table=table, user=bot).exists()


def test_bad_practice_requests_are_refused():
    user = create_player()
    for players, level, code in [
        (1, "amateur", "invalid_seats"),
        (7, "amateur", "invalid_seats"),
        (3, "grandmaster", "invalid_bot_level"),
        ("3", "amateur", "invalid_seats"),
    ]:
        with pytest.raises(GameError) as refused:
            services.practice_start(user=user, players=players, level=level)
        assert refused.value.code == code
    assert not Table.objects.exists()


def test_the_hint_is_the_amateurs_move_for_the_player_and_nothing_for_others():
    game, user = practice_game(players=2)
    engine = EngineGame.from_dict(game.state)
    hint = tables.practice_hint(table=game.table, user=user)
    if PLAYER_SEAT in engine.waiting_for:
        assert hint == choose_action(engine, PLAYER_SEAT)
    assert tables.practice_hint(table=game.table, user=create_player()) is None


def test_a_player_on_a_break_from_play_cannot_start_practice():
    user = create_player()
    limits.break_start(user=user, length="24h")
    with pytest.raises(GameError) as refused:
        services.practice_start(user=user, players=3, level="amateur")
    assert refused.value.code == "self_excluded"
    assert not Table.objects.filter(practice=True).exists()
