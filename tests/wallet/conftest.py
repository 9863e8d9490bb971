"""Players and staff for the wallet tests."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.players import confirm_second_factor, create_player
from wallet import services


def make_balance_stale(account_id: int, balance: int) -> None:
    """Write a cached balance its entries don't add up to, as only a restore with the triggers
    off could: the database refuses one at commit. The test's transaction is rolled back, and
    the trigger with it."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the checks of earlier postings, run now
        cursor.execute(
            "ALTER TABLE wallet_account DISABLE TRIGGER wallet_account_balance_matches_entries"
        )
        cursor.execute(
            "UPDATE wallet_account SET balance = %s WHERE id = %s", [balance, account_id]
        )


@pytest.fixture
def make_user(db):
    return create_player


@pytest.fixture
def staff(make_user):
    user = make_user(is_staff=True, nickname="cashier")
    user.is_superuser = True
    user.save()
    return user


@pytest.fixture
def ledger(make_user):
    """Two players with deposits, a stake held and released, and a withdrawal."""
    anna = make_user(nickname="anna", balance=5_000)
    boris = make_user(nickname="boris", balance=7_000)
    services.stake_hold(user=anna, table_id=3, amount=1_000, idempotency_key="hold:table:3:seat:1")
    services.stake_hold(user=boris, table_id=3, amount=1_000, idempotency_key="hold:table:3:seat:2")
    services.stake_release(
        user=anna, table_id=3, amount=1_000, idempotency_key="release:table:3:seat:1"
    )
    services.withdrawal_hold(user=boris, amount=500, idempotency_key="w:1")
    services.withdrawal_pay(amount=500, idempotency_key="w:1:pay", initiated_by=None, memo="")
    return anna, boris


@pytest.fixture
def staff_client(client, staff):
    """Signed in, with the second factor just confirmed."""
    client.force_login(staff)
    confirm_second_factor(client)
    return client
