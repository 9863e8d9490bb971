"""The ledger's invariants hold in PostgreSQL itself, even for hand-written SQL."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from wallet import services
from wallet.models import Account, Entry, LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def posted(make_user):
    user = make_user(balance=1_000)
    return services.stake_hold(
        user=user, table_id=1, amount=400, idempotency_key="hold:table:1:seat:1"
    )


def _execute(sql: str, params: list) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_unbalanced_raw_insert_fails_at_commit(posted):
    account_ids = list(posted.entries.values_list("account_id", flat=True))
    with (
        pytest.raises(IntegrityError, match="unbalanced"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO wallet_ledgertransaction (kind, idempotency_key, fingerprint, memo,"
            " created_at) VALUES ('adjustment', 'forged', '', '', now()) RETURNING id"
        )
        forged_id = cursor.fetchone()[0]
        cursor.execute(
            "INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after)"
            " VALUES (%s, %s, 500, 0), (%s, %s, -400, 0)",
            [forged_id, account_ids[0], forged_id, account_ids[1]],
        )
    assert not LedgerTransaction.objects.filter(idempotency_key="forged").exists()


def test_transaction_without_entries_fails_at_commit(posted):
    with pytest.raises(IntegrityError, match="no entries"):
        _execute(
            "INSERT INTO wallet_ledgertransaction (kind, idempotency_key, fingerprint, memo,"
            " created_at) VALUES ('adjustment', 'empty', '', '', now())",
            [],
        )
    assert not LedgerTransaction.objects.filter(idempotency_key="empty").exists()


def test_zero_amount_entry_is_refused(posted):
    account_id = posted.entries.first().account_id
    with pytest.raises(IntegrityError, match="wallet_entry_amount_not_zero"):
        _execute(
            "INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after)"
            " VALUES (%s, %s, 0, 0)",
            [posted.pk, account_id],
        )


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE wallet_entry SET amount = amount * 2 WHERE transaction_id = %s",
        "DELETE FROM wallet_entry WHERE transaction_id = %s",
        "UPDATE wallet_ledgertransaction SET memo = 'rewritten' WHERE id = %s",
        "DELETE FROM wallet_ledgertransaction WHERE id = %s",
    ],
)
def test_ledger_rows_cannot_be_updated_or_deleted(posted, sql):
    before = list(Entry.objects.filter(transaction=posted).values_list("amount", flat=True))
    with pytest.raises(IntegrityError, match="immutable"):
        _execute(sql, [posted.pk])
    posted.refresh_from_db()
    assert posted.memo == ""
    assert list(Entry.objects.filter(transaction=posted).values_list("amount", flat=True)) == before


def test_only_an_accounts_balance_may_change(posted, make_user):
    account = posted.entries.get(account__kind=Account.Kind.USER).account
    other = make_user()
    with pytest.raises(IntegrityError, match="only the balance"):
        _execute("UPDATE wallet_account SET user_id = %s WHERE id = %s", [other.pk, account.pk])
    with pytest.raises(IntegrityError, match="immutable"):
        _execute("DELETE FROM wallet_account WHERE id = %s", [account.pk])
    account.refresh_from_db()
    assert account.user_id != other.pk


def test_user_wallet_can_never_go_negative(posted):
    account = posted.entries.get(account__kind=Account.Kind.USER).account
    with pytest.raises(IntegrityError, match="wallet_user_balance_not_negative"):
        _execute("UPDATE wallet_account SET balance = -1 WHERE id = %s", [account.pk])
    account.refresh_from_db()
    assert account.balance == 600
