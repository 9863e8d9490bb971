"""Fifty players hold, release and settle on the same accounts at once."""

from __future__ import annotations

import random
import threading
from collections import Counter
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from games.engine import DEFAULT_PERCENTAGES, split_bank
from games.services.bank import bank_settle
from wallet import selectors, services
from wallet.models import Account, LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 50
TABLES = 10
ROUNDS = 3
START = 100_000
STAKE = 1_000
EXTRA = 333
COMMISSION = Decimal("5")


def _places(game_id: int, seats: int) -> list[list[int]]:
    """Random leaving order with shared places, the same for every thread of one game."""
    rng = random.Random(game_id)
    order = list(range(seats))
    rng.shuffle(order)
    places, i = [], 0
    while i < seats:
        size = rng.randint(1, seats - i)
        places.append(order[i : i + size])
        i += size
    return places


@pytest.mark.slow
def test_fifty_threads_end_with_exact_balances(make_user):
    players = [make_user(balance=START) for _ in range(THREADS)]
    table_of = {i: i % TABLES + 1 for i in range(THREADS)}
    seats_at = {t: [i for i in range(THREADS) if table_of[i] == t] for t in range(1, TABLES + 1)}
    barrier = threading.Barrier(THREADS, timeout=60)
    errors: list[BaseException] = []

    def settle_args(table_id: int, round_number: int) -> dict:
        members = seats_at[table_id]
        game_id = round_number * 100 + table_id
        return {
            "table_id": table_id,
            "game_id": game_id,
            "bank": STAKE * len(members),
            "commission_percent": COMMISSION,
            "places": _places(game_id, len(members)),
            "seat_users": {seat: players[i].pk for seat, i in enumerate(members)},
            "percentages": list(DEFAULT_PERCENTAGES[len(members)]),
        }

    def play(i: int) -> None:
        user, table_id = players[i], table_of[i]
        try:
            for round_number in range(ROUNDS):
                seat_key = f"table:{table_id}:seat:{round_number * 1000 + i}"
                # The stake, sent twice as a double click would.
                for _ in range(2):
                    services.stake_hold(
                        user=user,
                        table_id=table_id,
                        amount=STAKE,
                        idempotency_key=f"hold:{seat_key}",
                    )
                # A seat taken and left again before the start.
                extra_key = f"table:{table_id}:seat:{round_number * 1000 + 500 + i}"
                services.stake_hold(
                    user=user, table_id=table_id, amount=EXTRA, idempotency_key=f"hold:{extra_key}"
                )
                services.stake_release(
                    user=user,
                    table_id=table_id,
                    amount=EXTRA,
                    idempotency_key=f"release:{extra_key}",
                )
                barrier.wait()
                # Every player of the table reports the finished game: it is paid once.
                bank_settle(**settle_args(table_id, round_number))
                barrier.wait()
        except BaseException as error:  # reported below, so a failing thread fails the test
            errors.append(error)
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=play, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors[:3]

    expected = {i: START - ROUNDS * STAKE for i in range(THREADS)}
    commission_total = 0
    for table_id, members in seats_at.items():
        for round_number in range(ROUNDS):
            args = settle_args(table_id, round_number)
            commission = int(args["bank"] * COMMISSION / 100)
            commission_total += commission
            payouts = split_bank(args["bank"] - commission, args["places"], args["percentages"])
            for seat, amount in payouts.items():
                expected[members[seat]] += amount

    assert {i: selectors.user_balance(user=players[i]) for i in range(THREADS)} == expected
    assert Account.objects.get(kind=Account.Kind.HOUSE).balance == commission_total
    assert not Account.objects.filter(kind=Account.Kind.TABLE_BANK).exclude(balance=0).exists()
    assert not Account.objects.filter(balance__lt=0).exclude(kind=Account.Kind.EXTERNAL).exists()
    kinds = Counter(LedgerTransaction.objects.values_list("kind", flat=True))
    assert kinds["stake_hold"] == THREADS * ROUNDS * 2
    assert kinds["stake_release"] == THREADS * ROUNDS
    assert kinds["bank_settle"] == TABLES * ROUNDS

    out = StringIO()
    call_command("ledger_check", stdout=out)
    assert "ledger OK: 0 findings" in out.getvalue()
    assert f"checked transactions: {THREADS * (1 + ROUNDS * 3) + TABLES * ROUNDS}" in out.getvalue()
