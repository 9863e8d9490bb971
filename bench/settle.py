"""The ledger's cost per game: four stakes held, then the bank paid out, each committed.

    python bench/settle.py --games 200

Runs against the database of the environment (DATABASE_URL or the embedded ports), with four
players ``settle-N`` that are reused and topped up. Prints the mean and 95th percentile of a
stake hold and of a settlement, commit included (the ledger's deferred checks run there).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402
from django.db.models import Max  # noqa: E402

from games.services.bank import bank_settle  # noqa: E402
from wallet import services as wallet_services  # noqa: E402
from wallet.models import LedgerTransaction  # noqa: E402

SEATS = 4
STAKE = 100
FUNDS = 1_000_000


def players() -> list:
    users = []
    for number in range(SEATS):
        user, _ = get_user_model().objects.get_or_create(
            username=f"settle-{number}", defaults={"email": f"settle-{number}@example.com"}
        )
        wallet_services.deposit(
            user=user,
            amount=FUNDS,
            idempotency_key=f"settle-funds:{user.pk}:{time.time_ns()}",
            initiated_by=None,
            memo="",
        )
        users.append(user)
    return users


def percentile(values: list[float], share: float) -> float:
    return sorted(values)[int(share * (len(values) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    users = players()
    run = time.time_ns()
    first_table = (LedgerTransaction.objects.aggregate(last=Max("table_id"))["last"] or 0) + 1
    holds: list[float] = []
    settles: list[float] = []
    for game in range(args.games):
        table_id = first_table + game
        for seat, user in enumerate(users):
            started = time.perf_counter()
            wallet_services.stake_hold(
                user=user,
                table_id=table_id,
                amount=STAKE,
                idempotency_key=f"settle-bench:{run}:{table_id}:{seat}",
            )
            holds.append(time.perf_counter() - started)
        started = time.perf_counter()
        with transaction.atomic():
            bank_settle(
                table_id=table_id,
                game_id=table_id,
                bank=STAKE * SEATS,
                commission_percent=Decimal(5),
                places=[[0], [1], [2], [3]],
                seat_users={seat: user.pk for seat, user in enumerate(users)},
                percentages=[50, 30, 20, 0],
            )
        settles.append(time.perf_counter() - started)
    for name, values in (("stake hold", holds), ("settlement", settles)):
        print(
            f"{name}: n={len(values)} mean={statistics.mean(values) * 1000:.2f} ms"
            f" p95={percentile(values, 0.95) * 1000:.2f} ms"
        )


if __name__ == "__main__":
    main()
