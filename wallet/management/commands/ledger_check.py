from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from wallet.selectors import ledger_findings


class Command(BaseCommand):
    help = (
        "Audit the ledger: balanced transactions, cached balances, no negative wallet, "
        "every finished game settled exactly once, every table bank holding exactly the stakes of "
        "its seated players, every succeeded payment credited once, every refund taken once, "
        "the pending withdrawals account holding exactly the pending requests. Exits non-zero "
        "on any finding."
    )

    def handle(self, *args, **options) -> None:
        report = ledger_findings()
        for name, count in report.checked.items():
            self.stdout.write(f"checked {name}: {count}")
        for finding in report.findings:
            self.stdout.write(self.style.ERROR(f"FINDING: {finding}"))
        if report.findings:
            raise CommandError(f"ledger check failed: {len(report.findings)} finding(s)")
        self.stdout.write(self.style.SUCCESS("ledger OK: 0 findings"))
