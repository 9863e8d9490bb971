"""The live-table services against the real database and ledger."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.engine import Game as EngineGame
from games.engine import split_bank
from games.engine.bots import choose_action
from games.models import (
    BankDistribution,
    Game,
    GameEvent,
    PayoutScheme,
    Seat,
    Table,
)
from games.selectors import stats
from games.services import GameError
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player, metric_value
from wallet.models import LedgerTransaction
from wallet.selectors import user_balance
from wallet.services import house_account

pytestmark = pytest.mark.django_db


def seated_game(players: int, **table_options) -> tuple[Game, list]:
    users = [create_player() for _ in range(players)]
    table = services.table_create(user=users[0], stake=STAKE, seats=players, **table_options)
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    return Game.objects.get(table=table), users


def bot_move(game: Game, users: list) -> None:
    game.refresh_from_db()
    engine = EngineGame.from_dict(game.state)
    seat = engine.waiting_for[0]
    services.game_apply_action(
        game_id=game.pk,
        user=users[seat],
        action=choose_action(engine, seat),
        expected_version=game.version,
    )


def play_out(game: Game, users: list) -> Game:
    """Every player moves with the engine's bot until the game is over."""
    for _step in range(5000):
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            return game
        bot_move(game, users)
    raise AssertionError("the game did not end")


def snapshot(game: Game) -> tuple:
    game.refresh_from_db()
    return game.version, game.state, game.deadline, GameEvent.objects.filter(game=game).count()


def expire_deadline(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))


# --- tables and stakes ------------------------------------------------------------------------


def test_creating_and_joining_hold_stakes_and_the_last_seat_starts_the_game():
    creator, second, third = (create_player() for _ in range(3))
    table = services.table_create(user=creator, stake=STAKE, seats=3)
    assert Seat.objects.get(table=table, user=creator).position == 0
    assert user_balance(user=creator) == OPENING_BALANCE - STAKE
    services.table_join(table_id=table.pk, user=second)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert not Game.objects.filter(table=table).exists()

    services.table_join(table_id=table.pk, user=third)
    table.refresh_from_db()
    game = Game.objects.get(table=table)
    assert table.status == Table.Status.PLAYING
    assert game.players == [creator.pk, second.pk, third.pk]
    assert game.bank == 3 * STAKE
    assert game.seed_hash == hashlib.sha256(game.seed.encode()).hexdigest()
    assert EngineGame.from_dict(game.state).to_dict() == EngineGame.new(3, game.seed).to_dict()
    assert game.deadline is not None and game.deadline > timezone.now()
    for user in (creator, second, third):
        assert user_balance(user=user) == OPENING_BALANCE - STAKE


def test_a_players_open_tables_count_every_seat_taken_not_only_his():
    creator, second, elsewhere = (create_player() for _ in range(3))
    table = services.table_create(user=creator, stake=STAKE, seats=3)
    services.table_join(table_id=table.pk, user=second)
    services.table_create(user=elsewhere, stake=STAKE, seats=2)
    (mine,) = stats.user_active_tables(user=creator)
    assert (mine.pk, mine.taken) == (table.pk, 2)


def test_leaving_before_the_start_returns_the_stake_and_an_empty_table_closes():
    creator, guest = create_player(), create_player()
    table = services.table_create(user=creator, stake=STAKE, seats=3)
    services.table_join(table_id=table.pk, user=guest)
    services.table_leave(table_id=table.pk, user=guest)
    assert user_balance(user=guest) == OPENING_BALANCE
    services.table_join(table_id=table.pk, user=guest)  # a new sitting, a new hold
    assert Seat.objects.filter(table=table, user=guest).count() == 2
    services.table_leave(table_id=table.pk, user=guest)
    services.table_leave(table_id=table.pk, user=creator)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert user_balance(user=creator) == OPENING_BALANCE
    assert user_balance(user=guest) == OPENING_BALANCE
    call_command("ledger_check")


def age_seats(table: Table, seconds: float) -> None:
    """Pretend the table's seats were taken `seconds` ago."""
    Seat.objects.filter(table=table).update(joined_at=timezone.now() - timedelta(seconds=seconds))


def test_an_open_table_nobody_joins_is_closed_by_the_sweeper_and_every_stake_returns(settings):
    settings.TABLE_OPEN_TTL = 600
    creator, guest, late, other = (create_player() for _ in range(4))
    abandoned = services.table_create(user=creator, stake=STAKE, seats=3)
    services.table_join(table_id=abandoned.pk, user=guest)
    age_seats(abandoned, 601)
    waiting = services.table_create(user=other, stake=STAKE, seats=3)
    game, players = seated_game(2)
    age_seats(game.table, 3600)  # a game in progress is never expired
    # Aged last and with a margin: creating the players above can take seconds on a busy machine.
    age_seats(waiting, 590)

    closed = metric_value("durak_sweeper_catchups_total", kind="table")
    assert services.games_sweep() >= 1
    assert services.games_sweep() == 0  # the second run finds nothing left to do
    assert metric_value("durak_sweeper_catchups_total", kind="table") - closed == 1

    abandoned.refresh_from_db()
    assert abandoned.status == Table.Status.CLOSED
    assert not Seat.objects.filter(table=abandoned, left_at__isnull=True).exists()
    assert user_balance(user=creator) == OPENING_BALANCE
    assert user_balance(user=guest) == OPENING_BALANCE
    releases = LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.STAKE_RELEASE, table_id=abandoned.pk
    )
    assert releases.count() == 2
    assert services.table_expire(table_id=abandoned.pk) is False
    assert releases.count() == 2
    with pytest.raises(GameError) as refused:
        services.table_join(table_id=abandoned.pk, user=late)
    assert refused.value.code == "table_not_open"
    assert user_balance(user=late) == OPENING_BALANCE

    waiting.refresh_from_db()
    assert waiting.status == Table.Status.OPEN
    assert user_balance(user=other) == OPENING_BALANCE - STAKE
    game.table.refresh_from_db()
    assert game.table.status == Table.Status.PLAYING
    assert all(user_balance(user=user) == OPENING_BALANCE - STAKE for user in players)
    call_command("ledger_check")


def test_only_the_newest_seat_counts_for_the_expiry_of_an_open_table(settings):
    settings.TABLE_OPEN_TTL = 600
    creator, guest = create_player(), create_player()
    table = services.table_create(user=creator, stake=STAKE, seats=3)
    age_seats(table, 3600)
    services.table_join(table_id=table.pk, user=guest)
    assert services.table_expire(table_id=table.pk) is False
    services.games_sweep()
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert user_balance(user=creator) == OPENING_BALANCE - STAKE
    # A seat given up does not keep the table alive.
    services.table_leave(table_id=table.pk, user=guest)
    services.games_sweep()
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert user_balance(user=creator) == OPENING_BALANCE
    assert user_balance(user=guest) == OPENING_BALANCE
    call_command("ledger_check")


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"stake": 0, "seats": 2}, "invalid_stake"),
        ({"stake": True, "seats": 2}, "invalid_stake"),
        ({"stake": "100", "seats": 2}, "invalid_stake"),
        ({"stake": STAKE, "seats": 7}, "invalid_seats"),
        ({"stake": STAKE, "seats": 1}, "invalid_seats"),
        ({"stake": STAKE, "seats": 2, "turn_seconds": 1}, "invalid_time"),
        ({"stake": STAKE, "seats": 2, "throw_seconds": 1000}, "invalid_time"),
        ({"stake": OPENING_BALANCE + 1, "seats": 2}, "insufficient_funds"),
    ],
)
def test_bad_tables_are_refused_and_nothing_moves(options, code):
    user = create_player()
    with pytest.raises(GameError) as refused:
        services.table_create(user=user, **options)
    assert refused.value.code == code
    assert not Table.objects.exists()
    assert user_balance(user=user) == OPENING_BALANCE


def test_refused_joins_change_nothing():
    creator, poor, other = create_player(), create_player(balance=STAKE - 1), create_player()
    private = services.table_create(user=creator, stake=STAKE, seats=2, private=True)
    cases = [
        (dict(table_id=private.pk, user=other), "bad_invite_code"),
        (dict(table_id=private.pk, user=other, invite_code="guess"), "bad_invite_code"),
        (
            dict(table_id=private.pk, user=creator, invite_code=private.invite_code),
            "already_seated",
        ),
        (
            dict(table_id=private.pk, user=poor, invite_code=private.invite_code),
            "insufficient_funds",
        ),
        (dict(table_id=10**9, user=other), "table_not_found"),
        (dict(table_id="1", user=other), "table_not_found"),
    ]
    for arguments, code in cases:
        with pytest.raises(GameError) as refused:
            services.table_join(**arguments)
        assert refused.value.code == code
    assert list(Seat.objects.values_list("user_id", flat=True)) == [creator.pk]
    assert user_balance(user=poor) == STAKE - 1
    assert user_balance(user=other) == OPENING_BALANCE

    services.table_join(table_id=private.pk, user=other, invite_code=private.invite_code)
    late = create_player()
    with pytest.raises(GameError) as refused:
        services.table_join(table_id=private.pk, user=late, invite_code=private.invite_code)
    assert refused.value.code == "table_not_open"
    with pytest.raises(GameError) as refused:
        services.table_leave(table_id=private.pk, user=other)
    assert refused.value.code == "game_in_progress"
    assert user_balance(user=late) == OPENING_BALANCE


def test_one_active_seat_per_position_and_per_user_is_enforced_by_the_database():
    creator, other = create_player(), create_player()
    table = services.table_create(user=creator, stake=STAKE, seats=3)
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(table=table, user=other, position=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(table=table, user=creator, position=1)


# --- moves ---------------------------------------------------------------------------------


def test_a_full_four_player_game_settles_the_bank_by_places():
    game, users = seated_game(4)
    game = play_out(game, users)
    engine = EngineGame.from_dict(game.state)
    expected = split_bank(4 * STAKE, engine.places, [60, 30, 10, 0])
    for seat, user in enumerate(users):
        assert user_balance(user=user) == OPENING_BALANCE - STAKE + expected[seat]
    shares = BankDistribution.objects.filter(game=game)
    assert {share.seat: share.amount for share in shares} == expected
    assert {share.seat: share.user_id for share in shares} == dict(enumerate(game.players))
    assert game.table.status == Table.Status.CLOSED
    assert game.deadline is None and game.finished_at is not None
    assert game.status == Game.Status.FINISHED and game.percentages == [60, 30, 10, 0]
    assert game.rematch_until > game.finished_at
    assert not Seat.objects.filter(table=game.table, left_at__isnull=True).exists()
    assert GameEvent.objects.filter(game=game).count() == game.version
    call_command("ledger_check")
    call_command("verify_game", game.pk)


# The move that ends a game: lock the game and its table, the seats, the payout scheme; the
# settlement (the players' wallets, the table's bank, the house, the posting's lock, its
# transaction, its entries with the balances); the ratings locked, then updated with their
# changes; and the last moves, the bank's distribution, the seats standing up, the table closed
# and the game finished, in one statement.
STATEMENTS_PER_FINISHING_MOVE = 12


def test_the_move_that_ends_a_game_takes_the_same_statements_for_two_players_as_for_four():
    house_account()  # made on its first use, in statements of its own
    counts = []
    for players in (2, 4):
        game, users = seated_game(players)
        Table.objects.filter(pk=game.table_id).update(commission_percent="5")
        while game.status == Game.Status.PLAYING:
            engine = EngineGame.from_dict(game.state)
            seat = engine.waiting_for[0]
            with CaptureQueriesContext(connection) as queries:
                services.game_apply_action(
                    game_id=game.pk,
                    user=users[seat],
                    action=choose_action(engine, seat),
                    expected_version=game.version,
                )
            game.refresh_from_db()
        counts.append(len(queries) - 2)  # BEGIN and COMMIT aside
        assert game.commission > 0 and game.distribution.count() == players
    assert counts == [STATEMENTS_PER_FINISHING_MOVE] * 2


def test_the_commission_is_taken_first_and_rounded_down():
    users = [create_player() for _ in range(3)]
    table = services.table_create(user=users[0], stake=333, seats=3)
    Table.objects.filter(pk=table.pk).update(commission_percent="5.5")
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    game = play_out(Game.objects.get(table=table), users)
    assert game.commission == 54  # floor(999 * 5.5 / 100)
    engine = EngineGame.from_dict(game.state)
    expected = split_bank(999 - 54, engine.places, [80, 20, 0])
    assert sum(share.amount for share in game.distribution.all()) == 999 - 54
    for seat, user in enumerate(users):
        assert user_balance(user=user) == OPENING_BALANCE - 333 + expected[seat]
    call_command("ledger_check")
    call_command("verify_game", game.pk)


def test_refused_moves_change_nothing():
    game, users = seated_game(3)
    spectator = create_player()
    engine = EngineGame.from_dict(game.state)
    leader = engine.waiting_for[0]
    idle = next(seat for seat in range(3) if seat != leader)
    lead = engine.timeout_action(leader)
    before = snapshot(game)
    cases = [
        (users[leader], lead, game.version + 1, "stale_version"),
        (users[leader], lead, game.version - 1 if game.version else 5, "stale_version"),
        (users[leader], lead, "0", "stale_version"),
        (spectator, lead, game.version, "not_a_player"),
        (users[idle], engine.timeout_action(leader), game.version, "not_your_turn"),
        (users[leader], {"type": "attack", "cards": ["6S"], "seat": idle}, 0, "malformed"),
        (users[leader], {"type": "castle"}, game.version, "malformed"),
        (users[leader], "take", game.version, "malformed"),
        (users[leader], {"type": "take"}, game.version, "not_your_turn"),
    ]
    for user, action, version, code in cases:
        with pytest.raises(GameError) as refused:
            services.game_apply_action(
                game_id=game.pk, user=user, action=action, expected_version=version
            )
        assert refused.value.code == code, (action, version)
        assert str(refused.value.message)
    assert snapshot(game) == before
    with pytest.raises(GameError) as refused:
        services.game_apply_action(game_id=10**9, user=users[0], action=lead, expected_version=0)
    assert refused.value.code == "game_not_found"


def test_a_card_the_player_does_not_hold_is_refused():
    game, users = seated_game(2)
    engine = EngineGame.from_dict(game.state)
    leader = engine.waiting_for[0]
    foreign = engine.hand(1 - leader)[0]
    before = snapshot(game)
    with pytest.raises(GameError) as refused:
        services.game_apply_action(
            game_id=game.pk,
            user=users[leader],
            action={"type": "attack", "cards": [foreign]},
            expected_version=game.version,
        )
    assert refused.value.code == "card_not_in_hand"
    assert snapshot(game) == before


# --- time ----------------------------------------------------------------------------------


def test_a_timeout_acts_once_even_when_it_runs_twice():
    game, users = seated_game(2)
    bot_move(game, users)  # the lead: now the defender is waited for
    game.refresh_from_db()
    defender = EngineGame.from_dict(game.state).waiting_for[0]
    version = game.version
    assert not services.game_timeout(
        game_id=game.pk, version=version
    )  # not due yet: nothing happens
    assert snapshot(game)[0] == version
    expire_deadline(game)
    assert services.game_timeout(game_id=game.pk, version=version)
    assert not services.game_timeout(game_id=game.pk, version=version)
    event = GameEvent.objects.get(game=game, version=version + 1)
    assert (event.seat, event.action, event.automatic) == (defender, {"type": "take"}, True)
    assert GameEvent.objects.filter(game=game).count() == version + 1
    assert Game.objects.get(pk=game.pk).version == version + 1
    assert Seat.objects.get(table=game.table, position=defender).server_moves == {"take": 1}


def test_the_sweeper_finishes_a_deadline_whose_task_was_lost():
    game, users = seated_game(2)
    engine = EngineGame.from_dict(game.state)
    leader = engine.waiting_for[0]
    expire_deadline(game)
    assert services.games_sweep() >= 1
    event = GameEvent.objects.get(game=game, version=1)
    assert event.automatic and event.seat == leader
    assert event.action == engine.timeout_action(leader)
    game.refresh_from_db()
    assert game.deadline > timezone.now()
    assert services.games_sweep() == 0


def wait_for_seat(game: Game, users: list, position: int) -> EngineGame:
    """The others move until the game waits for `position` alone; its engine then."""
    for _move in range(500):
        game.refresh_from_db()
        engine = EngineGame.from_dict(game.state)
        assert game.status == Game.Status.PLAYING
        if engine.waiting_for == [position]:
            return engine
        assert position not in engine.waiting_for
        bot_move(game, users)
    raise AssertionError("the game never waited for the seat")


def test_acting_himself_brings_an_away_player_back():
    game, users = seated_game(2)
    leader = EngineGame.from_dict(game.state).waiting_for[0]
    Seat.objects.filter(table=game.table, position=leader).update(
        away=True, server_moves={"take": 1, "pass": 1}
    )
    bot_move(game, users)
    seat = Seat.objects.get(table=game.table, position=leader)
    assert (seat.server_moves, seat.away) == ({}, False)


def everyone_away_times_out(game: Game) -> Game:
    """Every player is away; the one the game waits for lets his deadline pass."""
    Seat.objects.filter(table=game.table, left_at__isnull=True).update(away=True)
    game.refresh_from_db()
    expire_deadline(game)
    assert services.game_timeout(game_id=game.pk, version=game.version)
    game.refresh_from_db()
    return game


def test_three_players_all_away_end_in_a_stalemate_and_share_the_bank():
    game, users = seated_game(3)
    engine = EngineGame.from_dict(game.state)
    # Left to themselves, the server's moves pass the same cards round the table for ever.
    loop = engine.copy()
    for _move in range(5000):
        seat = loop.waiting_for[0]
        loop.apply(seat, loop.timeout_action(seat))
    assert not loop.finished

    game = everyone_away_times_out(game)
    assert (game.status, game.stalemate, game.deadline) == (Game.Status.FINISHED, True, None)
    assert game.version == 1  # ended as soon as the repetition was certain, not after it
    assert EngineGame.from_dict(game.state).places == []  # nobody had left: all share place 1
    shares = list(BankDistribution.objects.filter(game=game).order_by("seat"))
    # (80 + 20 + 0) / 3 % of 3 stakes each: the stakes come back exactly.
    assert [(share.place, str(share.percent), share.amount) for share in shares] == [
        (1, "33.3333", STAKE)
    ] * 3
    assert [user_balance(user=user) for user in users] == [OPENING_BALANCE] * 3
    assert Table.objects.get(pk=game.table_id).status == Table.Status.CLOSED
    call_command("verify_game", game.pk)
    call_command("ledger_check")


def test_two_players_all_away_play_on_one_deadline_at_a_time_to_a_normal_result():
    game, users = seated_game(2)
    game = everyone_away_times_out(game)
    throw = timedelta(seconds=game.table.throw_seconds)
    for _deadline in range(500):
        if game.status != Game.Status.PLAYING:
            break
        # Nothing is played for them between deadlines, each the throw-in window long.
        assert timezone.now() + throw - timedelta(seconds=2) < game.deadline
        assert game.deadline <= timezone.now() + throw
        version = game.version
        assert not services.game_timeout(game_id=game.pk, version=version)
        expire_deadline(game)
        assert services.game_timeout(game_id=game.pk, version=version)
        game.refresh_from_db()
    engine = EngineGame.from_dict(game.state)
    assert (game.status, game.stalemate, engine.finished) == (Game.Status.FINISHED, False, True)
    assert engine.durak is not None
    assert all(event.automatic for event in GameEvent.objects.filter(game=game))
    call_command("verify_game", game.pk)


def test_verify_game_rejects_a_stalemate_the_server_moves_would_have_ended():
    game, users = seated_game(2)
    game = everyone_away_times_out(game)
    for _deadline in range(500):
        if game.status != Game.Status.PLAYING:
            break
        expire_deadline(game)
        assert services.game_timeout(game_id=game.pk, version=game.version)
        game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(stalemate=True)
    with pytest.raises(CommandError):
        call_command("verify_game", game.pk)


# --- rematch -------------------------------------------------------------------------------


# A confirmation: lock the game and its table; the latest game with the seats confirmed; the
# practice game he may be playing elsewhere; the stake checks (bot, staff block, the wallet
# locked, break, loss limits) and the seat; the ledger posting (the table's bank, lock,
# transaction, entries with balances); commit; then the table's state for everyone (table and
# game, seats, bank shares with the players' names).
STATEMENTS_PER_CONFIRMATION = 18


@pytest.mark.django_db(transaction=True)  # the table's state is read after the commit
def test_a_rematch_confirmation_takes_a_fixed_number_of_statements():
    game, users = seated_game(4)
    game = play_out(game, users)
    counts = []
    for user in users[:3]:
        with CaptureQueriesContext(connection) as queries:
            services.rematch_confirm(game_id=game.pk, user=user)
        counts.append(len(queries))
    assert counts == [STATEMENTS_PER_CONFIRMATION] * 3


def test_a_rematch_starts_when_every_player_confirms_and_holds_the_stakes_again():
    game, users = seated_game(2)
    game = play_out(game, users)
    outsider = create_player()
    with pytest.raises(GameError) as refused:
        services.rematch_confirm(game_id=game.pk, user=outsider)
    assert refused.value.code == "not_a_player"
    balance = user_balance(user=users[0])
    services.rematch_confirm(game_id=game.pk, user=users[0])
    assert user_balance(user=users[0]) == balance - STAKE
    with pytest.raises(GameError) as refused:
        services.rematch_confirm(game_id=game.pk, user=users[0])
    assert refused.value.code == "rematch_already_confirmed"
    services.rematch_confirm(game_id=game.pk, user=users[1])
    second = Game.objects.get(table=game.table, number=2)
    assert second.status == Game.Status.PLAYING
    assert second.players == game.players
    assert second.seed != game.seed
    with pytest.raises(GameError) as refused:
        services.rematch_confirm(game_id=game.pk, user=users[0])
    assert refused.value.code == "rematch_closed"
    call_command("ledger_check")


def test_a_player_without_the_stake_cannot_confirm_and_unconfirmed_rematches_expire():
    game, users = seated_game(2)
    game = play_out(game, users)
    loser = users[EngineGame.from_dict(game.state).durak]
    winner = users[game.players.index(next(u.pk for u in users if u != loser))]
    # The loser spends what is left, so he cannot hold another stake.
    from wallet import services as wallet_services

    spent = user_balance(user=loser)
    wallet_services.withdrawal_hold(user=loser, amount=spent, idempotency_key="spend-all")
    wallet_services.withdrawal_pay(
        amount=spent, idempotency_key="spend-all:pay", initiated_by=None, memo="cash out"
    )
    with pytest.raises(GameError) as refused:
        services.rematch_confirm(game_id=game.pk, user=loser)
    assert refused.value.code == "insufficient_funds"
    balance = user_balance(user=winner)
    services.rematch_confirm(game_id=game.pk, user=winner)
    assert user_balance(user=winner) == balance - STAKE
    Game.objects.filter(pk=game.pk).update(rematch_until=timezone.now() - timedelta(seconds=1))
    assert services.games_sweep() == 1
    assert user_balance(user=winner) == balance
    assert not Game.objects.filter(table=game.table, number=2).exists()
    call_command("ledger_check")


# --- fairness and the payout schemes -------------------------------------------------------


def test_verify_game_reports_a_tampered_log():
    game, users = seated_game(2)
    game = play_out(game, users)
    call_command("verify_game", game.pk)
    BankDistribution.objects.filter(game=game, amount__gt=0).update(amount=1)
    Game.objects.filter(pk=game.pk).update(seed_hash="0" * 64)
    with pytest.raises(CommandError):
        call_command("verify_game", game.pk)


def test_payout_schemes_are_seeded_from_the_rules_and_validated():
    assert dict(PayoutScheme.objects.values_list("players", "percentages")) == {
        2: [100, 0],
        3: [80, 20, 0],
        4: [60, 30, 10, 0],
        5: [50, 30, 15, 5, 0],
        6: [40, 30, 15, 10, 5, 0],
    }
    scheme = PayoutScheme.objects.get(players=4)
    for bad in ([60, 30, 10], [50, 30, 20, 0][::-1], [70, 30, 10, 0], [60, 30, 5, 5], ["60"]):
        scheme.percentages = bad
        with pytest.raises(ValidationError):
            scheme.clean()
    scheme.percentages = [70, 20, 10, 0]
    scheme.clean()
