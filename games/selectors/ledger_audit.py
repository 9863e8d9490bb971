"""The games' part of ``manage.py ledger_check`` (found through ``settings.LEDGER_AUDITS``):
every finished game settled exactly once, every table bank holding its seated players' stakes."""

from __future__ import annotations

from collections import Counter

from django.db.models import Count, Q

from games.models import Game, Table
from wallet.models import Account, LedgerTransaction
from wallet.selectors import LedgerReport


def ledger_report() -> LedgerReport:
    finished_ids = set(
        # A practice game has no bank, so nothing to settle.
        Game.objects.filter(status=Game.Status.FINISHED, bank__gt=0).values_list("pk", flat=True)
    )
    settlements = Counter(
        LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.BANK_SETTLE).values_list(
            "game_id", flat=True
        )
    )
    findings = _table_bank_findings()
    findings += [
        f"finished game {game_id} has {settlements[game_id]} bank settlements"
        for game_id in sorted(finished_ids)
        if settlements[game_id] != 1
    ]
    return LedgerReport(checked={"finished games": len(finished_ids)}, findings=findings)


def _table_bank_findings() -> list[str]:
    """A table bank holds exactly the stakes of the players seated at the table.

    Seats are taken with their stake held and freed with it released or settled (a game's
    end frees every seat), so money left in the bank of a closed table is money stuck there.
    """
    held = dict(
        Account.objects.filter(kind=Account.Kind.TABLE_BANK).values_list("table_id", "balance")
    )
    tables = Table.objects.filter(pk__in=list(held)).annotate(
        seated=Count("seat_set", filter=Q(seat_set__left_at__isnull=True))
    )
    return [
        f"table {table.pk} ({table.status}) bank holds {held[table.pk]}, "
        f"the stakes of its {table.seated} seated players are {table.stake * table.seated}"
        for table in tables.order_by("pk")
        if held[table.pk] != table.stake * table.seated
    ]
