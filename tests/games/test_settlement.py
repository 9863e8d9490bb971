"""Paying out a bank: commission first (rounded down), the rest exactly as split_bank says,
in one ledger posting."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import DEFAULT_PERCENTAGES, split_bank
from games.services.bank import bank_settle
from tests.players import create_player
from wallet import selectors, services
from wallet.models import Account, Entry

pytestmark = pytest.mark.django_db

_games = itertools.count(1)


@pytest.fixture
def make_user(db):
    return create_player


@st.composite
def games(draw):
    players = draw(st.integers(min_value=2, max_value=6))
    order = draw(st.permutations(range(players)))
    cuts = sorted(draw(st.sets(st.integers(min_value=1, max_value=players - 1))))
    places = [list(order[a:b]) for a, b in itertools.pairwise([0, *cuts, players])]
    stake = draw(st.integers(min_value=1, max_value=1_000_000))
    percent = draw(st.decimals(min_value=0, max_value=30, places=2))
    return players, places, stake, percent


def _house_balance() -> int:
    house = Account.objects.filter(kind=Account.Kind.HOUSE).first()
    return house.balance if house else 0


def _seat_players(make_user, players: int, stake: int, table_id: int):
    users = [make_user(balance=stake) for _ in range(players)]
    for seat, user in enumerate(users):
        services.stake_hold(
            user=user, table_id=table_id, amount=stake, idempotency_key=f"hold:{table_id}:{seat}"
        )
    return users


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(game=games())
def test_settlement_matches_split_bank(make_user, game):
    players, places, stake, percent = game
    game_id = table_id = next(_games)
    users = _seat_players(make_user, players, stake, table_id)
    house_before = _house_balance()
    bank = stake * players
    percentages = list(DEFAULT_PERCENTAGES[players])

    settlement = bank_settle(
        table_id=table_id,
        game_id=game_id,
        bank=bank,
        commission_percent=percent,
        places=places,
        seat_users={seat: user.pk for seat, user in enumerate(users)},
        percentages=percentages,
    )

    commission = int(bank * percent / 100)
    expected = split_bank(bank - commission, places, percentages)
    assert settlement.commission == commission
    assert settlement.payouts == expected
    assert [selectors.user_balance(user=user) for user in users] == [
        expected[seat] for seat in range(players)
    ]
    assert _house_balance() == house_before + commission
    assert Account.objects.get(kind=Account.Kind.TABLE_BANK, table_id=table_id).balance == 0
    entries = Entry.objects.filter(transaction=settlement.transaction)
    assert sum(entries.values_list("amount", flat=True)) == 0
    assert not entries.filter(amount=0).exists()
    assert entries.count() == 1 + (commission > 0) + sum(1 for v in expected.values() if v)


@pytest.mark.parametrize(
    ("bank", "percent", "commission"),
    [
        (999, Decimal("10"), 99),  # 99.9 rounds down
        (1_000, Decimal("0"), 0),
        (1_001, Decimal("2.5"), 25),  # 25.025
        (3, Decimal("33.33"), 0),  # 0.9999
        (40_000, Decimal("100"), 40_000),
    ],
)
def test_commission_is_rounded_down_to_a_whole_unit(make_user, bank, percent, commission):
    users = _seat_players(make_user, 1, bank, table_id=77)
    other = make_user(balance=0)
    settlement = bank_settle(
        table_id=77,
        game_id=77,
        bank=bank,
        commission_percent=percent,
        places=[[1], [0]],
        seat_users={0: users[0].pk, 1: other.pk},
        percentages=[100, 0],
    )
    assert settlement.commission == commission
    assert settlement.payouts == {1: bank - commission, 0: 0}
    assert selectors.user_balance(user=other) == bank - commission
    assert _house_balance() == commission


def test_settling_a_game_twice_pays_once_and_other_content_is_refused(make_user):
    users = _seat_players(make_user, 2, 500, table_id=9)
    args = {
        "table_id": 9,
        "game_id": 90,
        "bank": 1_000,
        "commission_percent": Decimal("0"),
        "places": [[0], [1]],
        "seat_users": {0: users[0].pk, 1: users[1].pk},
        "percentages": [100, 0],
    }
    first = bank_settle(**args)
    again = bank_settle(**args)
    assert again.transaction.pk == first.transaction.pk
    assert again.payouts == first.payouts == {0: 1_000, 1: 0}
    assert selectors.user_balance(user=users[0]) == 1_000
    with pytest.raises(services.DuplicateCommand):
        bank_settle(**{**args, "places": [[1], [0]]})
    assert selectors.user_balance(user=users[1]) == 0


@pytest.mark.parametrize(
    "change",
    [
        {"places": [[0], [0]]},
        {"places": [[0]]},
        {"percentages": [50, 60]},
        {"seat_users": {0: 1}},
        {"commission_percent": Decimal("101")},
        {"bank": 0},
        {"bank": 2_000},  # more than the table bank holds
    ],
)
def test_malformed_settlements_are_refused_and_move_nothing(make_user, change):
    users = _seat_players(make_user, 2, 500, table_id=12)
    args = {
        "table_id": 12,
        "game_id": 120,
        "bank": 1_000,
        "commission_percent": Decimal("0"),
        "places": [[0], [1]],
        "seat_users": {0: users[0].pk, 1: users[1].pk},
        "percentages": [100, 0],
    }
    with pytest.raises(services.WalletError):
        bank_settle(**{**args, **change})
    assert Account.objects.get(kind=Account.Kind.TABLE_BANK, table_id=12).balance == 1_000
    assert [selectors.user_balance(user=user) for user in users] == [0, 0]


def test_bank_settle_pays_places_and_commission(make_user):
    players = [make_user(balance=10_000) for _ in range(4)]
    for seat, player in enumerate(players):
        services.stake_hold(
            user=player, table_id=11, amount=10_000, idempotency_key=f"hold:table:11:seat:{seat}"
        )
    settlement = bank_settle(
        table_id=11,
        game_id=5,
        bank=40_000,
        commission_percent=Decimal("2.5"),
        places=[[1], [2, 3], [0]],
        seat_users={seat: player.pk for seat, player in enumerate(players)},
        percentages=[60, 30, 10, 0],
    )
    assert settlement.commission == 1_000
    assert settlement.payouts == {1: 23_400, 2: 7_800, 3: 7_800, 0: 0}
    assert settlement.transaction.idempotency_key == "settle:game:5"
    assert [selectors.user_balance(user=p) for p in players] == [0, 23_400, 7_800, 7_800]
    assert Account.objects.get(kind=Account.Kind.HOUSE).balance == 1_000
    assert Account.objects.get(kind=Account.Kind.TABLE_BANK, table_id=11).balance == 0
    # A zero payout gets no entry.
    assert settlement.transaction.entries.count() == 5


# The players' wallets, the table's bank, the house; then the posting (accounts locked,
# transaction, entries with balances).
STATEMENTS_PER_SETTLEMENT = 6


def test_a_settlement_takes_the_same_statements_for_two_players_as_for_six(make_user):
    services.house_account()  # made on its first use, in statements of its own
    counts = []
    for players in (2, 6):
        game_id = table_id = next(_games)
        users = _seat_players(make_user, players, 1_000, table_id)
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            settlement = bank_settle(
                table_id=table_id,
                game_id=game_id,
                bank=1_000 * players,
                commission_percent=Decimal("10"),
                places=[[seat] for seat in range(players)],
                seat_users=dict(enumerate(user.pk for user in users)),
                percentages=list(DEFAULT_PERCENTAGES[players]),
            )
        counts.append(len(queries))
        paid = [selectors.user_balance(user=user) for user in users]
        assert paid == [settlement.payouts[seat] for seat in range(players)]
    assert counts == [STATEMENTS_PER_SETTLEMENT] * 2
