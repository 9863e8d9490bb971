"""Export layouts (django-import-export) for transactions, entries and player statements.

Amounts are integer minor units (kopecks for RUB), as stored: no rounding on the way out.
"""

from __future__ import annotations

from django.conf import settings
from import_export import fields, resources

from wallet.models import Entry, LedgerTransaction


class LedgerTransactionResource(resources.ModelResource):
    kind = fields.Field(attribute="get_kind_display", column_name="kind")
    amount = fields.Field(column_name="amount")
    currency = fields.Field(column_name="currency")
    initiated_by = fields.Field(attribute="initiated_by__username", column_name="initiated_by")
    entries = fields.Field(column_name="entries")

    class Meta:
        model = LedgerTransaction
        fields = (
            "id",
            "created_at",
            "kind",
            "amount",
            "currency",
            "memo",
            "initiated_by",
            "table_id",
            "game_id",
            "idempotency_key",
            "entries",
        )
        export_order = fields

    def dehydrate_amount(self, ledger_transaction: LedgerTransaction) -> int:
        """What the transaction moved: the sum of its credits."""
        return sum(entry.amount for entry in ledger_transaction.entries.all() if entry.amount > 0)

    def dehydrate_currency(self, ledger_transaction: LedgerTransaction) -> str:
        return settings.CURRENCY

    def dehydrate_entries(self, ledger_transaction: LedgerTransaction) -> str:
        return "; ".join(
            f"{entry.account}: {entry.amount:+d}" for entry in ledger_transaction.entries.all()
        )


class EntryResource(resources.ModelResource):
    created_at = fields.Field(attribute="transaction__created_at", column_name="created_at")
    transaction = fields.Field(attribute="transaction_id", column_name="transaction")
    kind = fields.Field(attribute="transaction__get_kind_display", column_name="kind")
    account = fields.Field(column_name="account")
    player = fields.Field(attribute="account__user__username", column_name="player")
    currency = fields.Field(attribute="account__currency", column_name="currency")
    table_id = fields.Field(attribute="transaction__table_id", column_name="table_id")
    game_id = fields.Field(attribute="transaction__game_id", column_name="game_id")
    memo = fields.Field(attribute="transaction__memo", column_name="memo")

    class Meta:
        model = Entry
        fields = (
            "id",
            "created_at",
            "transaction",
            "kind",
            "account",
            "player",
            "amount",
            "balance_after",
            "currency",
            "table_id",
            "game_id",
            "memo",
        )
        export_order = fields

    def dehydrate_account(self, entry: Entry) -> str:
        return str(entry.account)
