from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

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


# The accounts locked, the transaction inserted unless its key is taken, its entries with the
# new balances; no savepoint inside the caller's transaction.
STATEMENTS_PER_POSTING = 3


def test_a_posting_takes_the_same_few_statements_whatever_the_number_of_accounts(make_user):
    players = [make_user(balance=1_000) for _ in range(5)]
    bank = services.table_bank(9)
    counts = []
    for payers in (players[:1], players):
        movements = {services.user_account(player): -100 for player in payers}
        movements[bank] = 100 * len(payers)
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            services.post(
                kind=LedgerTransaction.Kind.STAKE_HOLD,
                idempotency_key=f"hold:{len(payers)}",
                movements=movements,
            )
        counts.append(len(queries))
    assert counts == [STATEMENTS_PER_POSTING] * 2
    assert [selectors.user_balance(user=player) for player in players] == [800] + [900] * 4
    assert Account.objects.get(pk=bank.pk).balance == 600


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


def test_a_repeat_returns_the_first_posting_though_the_wallet_no_longer_covers_it(make_user):
    user = make_user(balance=1_000)
    first = services.stake_hold(user=user, table_id=7, amount=1_000, idempotency_key="hold:all")
    again = services.stake_hold(user=user, table_id=7, amount=1_000, idempotency_key="hold:all")
    assert again.pk == first.pk
    with pytest.raises(services.DuplicateCommand):
        services.stake_hold(user=user, table_id=7, amount=900, idempotency_key="hold:all")
    assert selectors.user_balance(user=user) == 0


def test_a_refused_posting_leaves_the_callers_transaction_as_it_was(make_user):
    player = make_user(balance=100)
    bank = services.table_bank(9)
    with transaction.atomic():
        services.stake_hold(user=player, table_id=9, amount=60, idempotency_key="hold:small")
        with pytest.raises(services.InsufficientFunds):
            services.stake_hold(user=player, table_id=9, amount=50, idempotency_key="hold:big")
        # Nothing of the refused posting was written: the caller goes on and commits his own.
        services.stake_hold(user=player, table_id=9, amount=40, idempotency_key="hold:rest")
    assert not LedgerTransaction.objects.filter(idempotency_key="hold:big").exists()
    assert selectors.user_balance(user=player) == 0
    assert Account.objects.get(pk=bank.pk).balance == 100


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


def test_a_posting_of_several_movements_is_one_balanced_transaction_written_once(make_user):
    payer, payee = make_user(balance=1_000), make_user(balance=1_000)
    command = {
        "kind": LedgerTransaction.Kind.ADJUSTMENT,
        "idempotency_key": "posting:1",
        "movements": {
            services.user_account(payer): -700,
            services.user_account(payee): 400,
            services.house_account(): 300,
        },
        "table_id": 5,
        "game_id": 6,
        "memo": "a three-way split",
    }
    first = services.post(**command)
    again = services.post(**command)
    assert again.pk == first.pk
    assert (first.table_id, first.game_id, first.memo) == (5, 6, "a three-way split")
    assert sorted(first.entries.values_list("amount", flat=True)) == [-700, 300, 400]
    assert [selectors.user_balance(user=user) for user in (payer, payee)] == [300, 1_400]
    with pytest.raises(services.DuplicateCommand):
        services.post(**{**command, "game_id": 7})
    assert LedgerTransaction.objects.filter(idempotency_key="posting:1").count() == 1


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"amounts": (-500, 400)}, services.InvalidCommand),  # does not add up to zero
        ({"amounts": (0, 0)}, services.InvalidAmount),
        ({"amounts": (-500,)}, services.InvalidCommand),  # one movement
        ({"amounts": (-5_000, 5_000)}, services.InsufficientFunds),
        ({"kind": "gift"}, services.InvalidCommand),
        ({"table_id": "5"}, services.InvalidCommand),
        ({"game_id": 0}, services.InvalidCommand),
    ],
)
def test_a_malformed_posting_is_refused_and_moves_nothing(make_user, change, error):
    payer, payee = make_user(balance=1_000), make_user(balance=1_000)
    amounts = change.pop("amounts", (-500, 500))
    accounts = [services.user_account(payer), services.user_account(payee)]
    before = LedgerTransaction.objects.count()
    with pytest.raises(error):
        services.post(
            **{
                "kind": LedgerTransaction.Kind.ADJUSTMENT,
                "idempotency_key": "posting:bad",
                "movements": dict(zip(accounts, amounts, strict=False)),
                **change,
            }
        )
    assert LedgerTransaction.objects.count() == before
    assert [selectors.user_balance(user=user) for user in (payer, payee)] == [1_000, 1_000]


def test_a_stake_is_held_from_the_locked_wallet_given_and_never_from_another_players(make_user):
    anna, boris = make_user(balance=1_000), make_user(balance=1_000)
    with transaction.atomic():
        wallet = services.lock_wallet(user=anna)
        services.stake_hold(user=anna, table_id=4, amount=300, idempotency_key="a", wallet=wallet)
    assert selectors.user_balance(user=anna) == 700
    for forged in (services.user_account(boris), services.table_bank(4)):
        with pytest.raises(services.InvalidCommand), transaction.atomic():
            services.stake_hold(
                user=anna, table_id=4, amount=300, idempotency_key="b", wallet=forged
            )
    assert [selectors.user_balance(user=user) for user in (anna, boris)] == [700, 1_000]
    assert services.table_bank(4).balance == 300
    assert not LedgerTransaction.objects.filter(idempotency_key="b").exists()
