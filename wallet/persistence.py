"""The wallet's raw SQL: the statements every posting takes, written once, where the ORM would
compile them anew each time (``durak_site.backends.plain_sql``). ``wallet.services`` decides;
this stores."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import DEFAULT_DB_ALIAS, connection

from durak_site.backends.plain_sql import ModelRows
from wallet.models import Account, Entry, LedgerTransaction

_TRANSACTIONS = ModelRows(LedgerTransaction)


def transaction_insert_unless_taken(ledger_transaction: LedgerTransaction) -> bool:
    """Insert the transaction unless its key is taken (then nothing happens), in one statement
    where a lookup, a savepoint and the insert took four."""
    sql, params = _TRANSACTIONS.insert([ledger_transaction])
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} ON CONFLICT (idempotency_key) DO NOTHING RETURNING id", params)
        row = cursor.fetchone()
    if row is None:
        return False
    ledger_transaction.pk = row[0]
    ledger_transaction._state.adding = False
    ledger_transaction._state.db = DEFAULT_DB_ALIAS
    return True


def balances_lock(account_ids: list[int]) -> dict[int, int]:
    """Lock the accounts, in one order by id so that two postings never deadlock, and read
    their balances: one statement written once, as every posting takes it."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, balance FROM {Account._meta.db_table} WHERE id = ANY(%s::bigint[])"
            " ORDER BY id FOR UPDATE",
            [sorted(account_ids)],
        )
        return dict(cursor.fetchall())


def entries_write(
    ledger_transaction: LedgerTransaction,
    movements: Mapping[Account, int],
    balances: Mapping[int, int],
) -> None:
    """The transaction's entries and every moved account's new balance (their rows are locked
    already), in one statement written once."""
    ids = sorted(balances)
    by_account = {account.pk: amount for account, amount in movements.items()}
    amounts = [by_account[account_id] for account_id in ids]
    new = [balances[account_id] for account_id in ids]
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH entries AS (INSERT INTO {Entry._meta.db_table}"
            " (transaction_id, account_id, amount, balance_after)"
            " SELECT %s, * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[]))"
            f" UPDATE {Account._meta.db_table} a SET balance = moved.balance"
            " FROM unnest(%s::bigint[], %s::bigint[]) AS moved (id, balance)"
            " WHERE a.id = moved.id",
            [ledger_transaction.pk, ids, amounts, new, ids, new],
        )
