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


@pytest.mark.parametrize(
    "sql",
    [
        # A balance moved without an entry.
        "UPDATE wallet_account SET balance = balance + 100 WHERE id = %(wallet)s",
        # Money moved between two accounts without entries: both stay non-negative and the sum
        # of all balances is unchanged, so only the entries can tell.
        "UPDATE wallet_account SET balance = balance + CASE id WHEN %(wallet)s THEN 100"
        " ELSE -100 END WHERE id IN (%(wallet)s, %(bank)s)",
    ],
)
def test_a_balance_cannot_move_without_its_entries(posted, sql):
    wallet = posted.entries.get(account__kind=Account.Kind.USER).account
    bank = posted.entries.get(account__kind=Account.Kind.TABLE_BANK).account
    with pytest.raises(IntegrityError, match="entries end at"):
        _execute(sql, {"wallet": wallet.pk, "bank": bank.pk})
    wallet.refresh_from_db()
    assert wallet.balance == 600


def test_an_account_cannot_be_created_with_money(make_user):
    user = make_user()
    with pytest.raises(IntegrityError, match="entries end at"):
        _execute(
            "INSERT INTO wallet_account (kind, currency, balance, user_id, provider, created_at)"
            " VALUES ('user', 'RUB', 5000, %s, '', now())",
            [user.pk],
        )
    assert not Account.objects.filter(user=user).exists()


def test_a_balanced_transaction_must_continue_each_accounts_balances(posted):
    """Entries that add up to zero, with balances set to match, but one ``balance_after`` is
    not its account's previous one plus the amount."""
    wallet = posted.entries.get(account__kind=Account.Kind.USER).account
    bank = posted.entries.get(account__kind=Account.Kind.TABLE_BANK).account
    with (
        pytest.raises(IntegrityError, match="is not 600 plus -100"),
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
            " VALUES (%s, %s, -100, 900), (%s, %s, 100, 500)",
            [forged_id, wallet.pk, forged_id, bank.pk],
        )
        cursor.execute("UPDATE wallet_account SET balance = 900 WHERE id = %s", [wallet.pk])
        cursor.execute("UPDATE wallet_account SET balance = 500 WHERE id = %s", [bank.pk])
    wallet.refresh_from_db()
    assert wallet.balance == 600
    assert not LedgerTransaction.objects.filter(idempotency_key="forged").exists()


def test_every_column_but_the_balance_is_fixed(posted):
    """Not a list of columns in the trigger: every column, including ones added later."""
    account = posted.entries.get(account__kind=Account.Kind.USER).account
    changes = {
        "id": "id + 1000000",
        "kind": "'house'",
        "currency": "'EUR'",
        "user_id": "NULL",
        "table_id": "7",
        "tournament_id": "7",
        "provider": "'elsewhere'",
        "created_at": "created_at - interval '1 day'",
    }
    columns = {field.column for field in Account._meta.concrete_fields}
    assert columns - {"balance"} == set(changes)
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE wallet_account ADD COLUMN note text")
    try:
        for column, value in [*changes.items(), ("note", "'rewritten'")]:
            with pytest.raises(IntegrityError, match="only the balance"):
                _execute(
                    f"UPDATE wallet_account SET {column} = {value} WHERE id = %s", [account.pk]
                )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE wallet_account DROP COLUMN note")
    account.refresh_from_db()
    assert account.kind == Account.Kind.USER and account.balance == 600
