"""Fifty threads at once: deposits, withdrawals, cancels, approvals, rejections and stakes."""

from __future__ import annotations

import random
import threading
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection, transaction
from django.test import override_settings

from wallet import deposits, limits, selectors, services, withdrawals
from wallet.models import Account, Payment, Withdrawal
from wallet.payments.test_provider import TestProvider

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = 44
STAFF = 6
TABLES = 8
DEPOSIT = 1_000_00
STAKE = 150_00
CASHIER = override_settings(
    PAYMENTS_TEST_MODE=True,
    DEPOSIT_MIN=100_00,
    DEPOSIT_MAX=10_000_00,
    WITHDRAWAL_MIN=100_00,
    WITHDRAWAL_FOUR_EYES_ABOVE=400_00,
)


def pay(payment: Payment) -> str:
    body, headers = TestProvider().notification(payment, succeeded=True)
    response = deposits.notification_receive(provider_code="test", body=body, headers=headers)
    return response.content.decode()


@pytest.mark.slow
@CASHIER
def test_fifty_threads_mixing_the_cashier_and_stakes_end_exact(make_user):
    players = [make_user() for _ in range(PLAYERS)]
    staff = [make_user(is_staff=True) for _ in range(STAFF)]
    user_model = get_user_model()
    user_model.objects.filter(pk__in=[user.pk for user in staff]).update(is_superuser=True)
    staff = list(user_model.objects.filter(pk__in=[user.pk for user in staff]))
    expected = {player.pk: 0 for player in players}
    # The games change a table's seats only under the table's row lock; so do these threads.
    table_locks = {table_id: threading.Lock() for table_id in range(1, TABLES + 1)}
    players_done = threading.Event()
    players_left = [PLAYERS]
    start = threading.Barrier(PLAYERS + STAFF, timeout=120)
    errors: list[BaseException] = []
    stats = {"credited": 0, "cancelled": 0, "decided": 0, "refused": 0}
    lock = threading.Lock()

    def count(name: str) -> None:
        with lock:
            stats[name] += 1

    def play(index: int) -> None:
        rng = random.Random(index)
        player = players[index]
        table_id = index % TABLES + 1
        balance = 0
        try:
            start.wait()
            for round_number in range(2):
                payment = deposits.deposit_start(
                    user=player, amount=DEPOSIT, provider_code="test", site_url="http://x"
                ).payment
                results = deliver_twice(payment)
                assert sorted(results) == [
                    '{"result": "credited"}',
                    '{"result": "duplicate"}',
                ], results
                balance += DEPOSIT
                count("credited")
                for seat in range(2):
                    key = f"table:{table_id}:seat:{index}:{round_number}:{seat}"
                    with table_locks[table_id], transaction.atomic():
                        limits.check_stake(user=player, amount=STAKE)
                        services.stake_hold(
                            user=player, table_id=table_id, amount=STAKE, idempotency_key=key
                        )
                    balance -= STAKE
                    if rng.random() < 0.5:
                        with table_locks[table_id]:
                            services.stake_release(
                                user=player,
                                table_id=table_id,
                                amount=STAKE,
                                idempotency_key=f"release:{key}",
                            )
                        balance += STAKE
                amount = rng.choice([200_00, 350_00, 500_00])
                withdrawal = withdrawals.withdrawal_request(
                    user=player,
                    amount=amount,
                    payout_details=f"card {index}",
                    request_key=str(uuid.uuid4()),
                )
                balance -= amount
                if rng.random() < 0.4:
                    try:
                        withdrawals.withdrawal_cancel(withdrawal_id=withdrawal.pk, user=player)
                        count("cancelled")
                    except withdrawals.WithdrawalNotPending:
                        count("refused")  # staff decided first
            # Stakes left at the tables go home before the end, so the banks end empty.
            for seat_key, in_bank in _held(player, table_id):
                with table_locks[table_id]:
                    services.stake_release(
                        user=player,
                        table_id=table_id,
                        amount=in_bank,
                        idempotency_key=f"release:{seat_key}",
                    )
                balance += in_bank
            expected[player.pk] = balance
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            with lock:
                players_left[0] -= 1
                if players_left[0] == 0:
                    players_done.set()
            connection.close()

    def decide(index: int) -> None:
        rng = random.Random(1000 + index)
        me = staff[index]
        try:
            start.wait()
            while True:
                pending = list(
                    Withdrawal.objects.filter(status=Withdrawal.Status.PENDING).values_list(
                        "pk", flat=True
                    )
                )
                if not pending:
                    if players_done.is_set():
                        return
                    players_done.wait(0.05)  # players are still asking
                    continue
                withdrawal_id = rng.choice(pending)
                try:
                    if rng.random() < 0.7:
                        withdrawals.withdrawal_approve(
                            withdrawal_id=withdrawal_id,
                            staff_user=me,
                            payout_reference=f"ref-{withdrawal_id}",
                        )
                    else:
                        withdrawals.withdrawal_reject(
                            withdrawal_id=withdrawal_id, staff_user=me, reason="checks failed"
                        )
                    count("decided")
                except withdrawals.WithdrawalError:
                    count("refused")  # decided meanwhile, or this one gave the first approval
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=play, args=(i,)) for i in range(PLAYERS)]
    threads += [threading.Thread(target=decide, args=(i,)) for i in range(STAFF)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors, errors[:3]
    assert not Withdrawal.objects.filter(status=Withdrawal.Status.PENDING).exists()
    returned = Withdrawal.objects.filter(
        status__in=[Withdrawal.Status.REJECTED, Withdrawal.Status.CANCELLED]
    )
    for withdrawal in returned:
        expected[withdrawal.user_id] += withdrawal.amount
    for player in players:
        assert selectors.user_balance(user=player) == expected[player.pk], player
    assert Payment.objects.filter(status=Payment.Status.SUCCEEDED).count() == PLAYERS * 2
    assert stats["credited"] == PLAYERS * 2
    statuses = set(Withdrawal.objects.values_list("status", flat=True))
    assert {Withdrawal.Status.APPROVED, Withdrawal.Status.REJECTED} <= statuses
    assert Account.objects.get(kind=Account.Kind.PENDING_PAYOUTS).balance == 0
    paid = sum(
        Withdrawal.objects.filter(status=Withdrawal.Status.APPROVED).values_list(
            "amount", flat=True
        )
    )
    assert Account.objects.get(kind=Account.Kind.EXTERNAL, provider="").balance == paid
    assert Account.objects.get(kind=Account.Kind.EXTERNAL, provider="test").balance == (
        -PLAYERS * 2 * DEPOSIT
    )
    call_command("ledger_check")
    print(f"cashier threads: {stats}, withdrawals by status: {sorted(statuses)}")


def deliver_twice(payment: Payment) -> list[str]:
    """The payment's notification delivered twice at once, as a retrying provider would."""
    results: list[str] = []

    def twin() -> None:
        try:
            results.append(pay(payment))
        finally:
            connection.close()

    thread = threading.Thread(target=twin)
    thread.start()
    results.append(pay(payment))
    thread.join()
    return results


def _held(player, table_id: int) -> list[tuple[str, int]]:
    """The player's stakes still in the table's bank: (seat key, amount) of each unreleased hold."""
    from wallet.models import LedgerTransaction

    holds = LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.STAKE_HOLD, table_id=table_id, initiated_by=player
    ).values_list("idempotency_key", flat=True)
    released = set(
        LedgerTransaction.objects.filter(
            kind=LedgerTransaction.Kind.STAKE_RELEASE, table_id=table_id, initiated_by=player
        ).values_list("idempotency_key", flat=True)
    )
    return [(key, STAKE) for key in holds if f"release:{key}" not in released]
