from __future__ import annotations

from decimal import Decimal

import pytest

from wallet import selectors, services
from wallet.models import Account, Entry, LedgerTransaction

pytestmark = pytest.mark.django_db


def test_deposit_and_withdrawal_move_between_wallet_pending_and_external_cash(make_user, staff):
    user = make_user()
    services.deposit(
        user=user, amount=10_000, idempotency_key="d1", initiated_by=staff, memo="cash"
    )
    services.withdrawal_hold(user=user, amount=2_500, idempotency_key="w1")
    pending = Account.objects.get(kind=Account.Kind.PENDING_PAYOUTS)
    assert (selectors.user_balance(user=user), pending.balance) == (7_500, 2_500)
    paid = services.withdrawal_pay(
        amount=2_000, idempotency_key="w1:pay", initiated_by=staff, memo="card"
    )
    services.withdrawal_return(
        user=user, amount=500, idempotency_key="w1:return", initiated_by=staff, memo=""
    )
    pending.refresh_from_db()
    assert (selectors.user_balance(user=user), pending.balance) == (8_000, 0)
    assert Account.objects.get(kind=Account.Kind.EXTERNAL).balance == -8_000
    assert paid.initiated_by == staff
    assert [entry.balance_after for entry in selectors.user_statement(user=user)] == [
        8_000,
        7_500,
        10_000,
    ]


def test_balance_is_zero_without_an_account(make_user):
    assert selectors.user_balance(user=make_user()) == 0


def test_repeated_key_pays_once(make_user):
    user = make_user(balance=1_000)
    first = services.stake_hold(
        user=user, table_id=7, amount=300, idempotency_key="hold:table:7:seat:1"
    )
    again = services.stake_hold(
        user=user, table_id=7, amount=300, idempotency_key="hold:table:7:seat:1"
    )
    assert again.pk == first.pk
    assert selectors.user_balance(user=user) == 700
    assert Account.objects.get(kind=Account.Kind.TABLE_BANK, table_id=7).balance == 300


def test_same_key_with_other_content_is_refused(make_user):
    user = make_user(balance=1_000)
    services.stake_hold(user=user, table_id=7, amount=300, idempotency_key="hold:table:7:seat:1")
    with pytest.raises(services.DuplicateCommand) as caught:
        services.stake_hold(
            user=user, table_id=7, amount=400, idempotency_key="hold:table:7:seat:1"
        )
    assert caught.value.code == "duplicate_command"
    with pytest.raises(services.DuplicateCommand):
        services.stake_hold(
            user=user, table_id=8, amount=300, idempotency_key="hold:table:7:seat:1"
        )
    assert selectors.user_balance(user=user) == 700


def test_insufficient_funds_changes_nothing(make_user):
    user = make_user(balance=500)
    entries_before = Entry.objects.count()
    with pytest.raises(services.InsufficientFunds) as caught:
        services.stake_hold(
            user=user, table_id=3, amount=501, idempotency_key="hold:table:3:seat:9"
        )
    assert caught.value.code == "insufficient_funds"
    assert caught.value.message
    assert selectors.user_balance(user=user) == 500
    assert Entry.objects.count() == entries_before
    assert not LedgerTransaction.objects.filter(idempotency_key="hold:table:3:seat:9").exists()


@pytest.mark.parametrize("amount", [0, -5, 1.5, "100", True, None])
def test_invalid_amounts_are_refused(make_user, amount):
    user = make_user(balance=500)
    with pytest.raises(services.InvalidAmount):
        services.stake_hold(user=user, table_id=3, amount=amount, idempotency_key="k")
    assert selectors.user_balance(user=user) == 500


def test_release_returns_the_stake_and_cannot_overdraw_the_bank(make_user):
    user = make_user(balance=1_000)
    services.stake_hold(user=user, table_id=4, amount=400, idempotency_key="hold:table:4:seat:1")
    services.stake_release(
        user=user, table_id=4, amount=400, idempotency_key="release:table:4:seat:1"
    )
    assert selectors.user_balance(user=user) == 1_000
    with pytest.raises(services.InsufficientFunds):
        services.stake_release(
            user=user, table_id=4, amount=1, idempotency_key="release:table:4:seat:2"
        )


def test_bank_settle_pays_places_and_commission(make_user):
    players = [make_user(balance=10_000) for _ in range(4)]
    for seat, player in enumerate(players):
        services.stake_hold(
            user=player, table_id=11, amount=10_000, idempotency_key=f"hold:table:11:seat:{seat}"
        )
    settlement = services.bank_settle(
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
