"""Export layouts of transactions and entries (see ``wallet.exports`` for how files are written).

Amounts leave as rubles (major units) with the currency in the header; dates as date cells.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from import_export import resources

from durak_site.staff.exports import number_column, text_column, time_column
from wallet.exports import money_column
from wallet.models import Entry, LedgerTransaction
from wallet.money import format_money, major_units


class LedgerTransactionResource(resources.ModelResource):
    file_name = "transactions"

    id = number_column(_("transaction no."), "id")
    created_at = time_column(_("date and time"), "created_at")
    kind = text_column(_("kind"), "get_kind_display")
    amount = money_column(_("amount"))
    memo = text_column(_("memo"), "memo")
    initiated_by = text_column(_("initiated by"), "initiated_by__username")
    table_id = number_column(_("table"), "table_id")
    game_id = number_column(_("game"), "game_id")
    entries = text_column(_("entries"))
    idempotency_key = text_column(_("idempotency key"), "idempotency_key")

    class Meta:
        model = LedgerTransaction
        name = _("transactions")
        fields = (
            "id",
            "created_at",
            "kind",
            "amount",
            "memo",
            "initiated_by",
            "table_id",
            "game_id",
            "entries",
            "idempotency_key",
        )
        export_order = fields

    def dehydrate_amount(self, ledger_transaction: LedgerTransaction):
        """What the transaction moved: the sum of its credits."""
        return major_units(
            sum(entry.amount for entry in ledger_transaction.entries.all() if entry.amount > 0)
        )

    def dehydrate_entries(self, ledger_transaction: LedgerTransaction) -> str:
        return "; ".join(
            f"{entry.account}: {format_money(entry.amount, signed=True)}"
            for entry in ledger_transaction.entries.all()
        )


class EntryResource(resources.ModelResource):
    file_name = "entries"

    id = number_column(_("entry no."), "id")
    created_at = time_column(_("date and time"), "transaction__created_at")
    transaction = number_column(_("transaction no."), "transaction_id")
    kind = text_column(_("kind"), "transaction__get_kind_display")
    account = text_column(_("account"), "account")
    player = text_column(_("player"), "account__user__username")
    amount = money_column(_("amount"), "amount")
    balance_after = money_column(_("balance after"), "balance_after")
    table_id = number_column(_("table"), "transaction__table_id")
    game_id = number_column(_("game"), "transaction__game_id")
    memo = text_column(_("memo"), "transaction__memo")

    class Meta:
        model = Entry
        name = _("entries")
        fields = (
            "id",
            "created_at",
            "transaction",
            "kind",
            "account",
            "player",
            "amount",
            "balance_after",
            "table_id",
            "game_id",
            "memo",
        )
        export_order = fields
