"""The double-entry ledger.

Every movement of money is one ``LedgerTransaction`` with two or more ``Entry`` rows whose
signed amounts sum to zero. ``Account.balance`` caches the sum of an account's entries. The
database itself enforces the invariants (see the RunSQL in the migrations): balanced
transactions, no zero entries, immutable ledger rows, no negative user wallet.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


def default_currency() -> str:
    """Read when an account is created, so the migrations do not freeze one currency."""
    return settings.CURRENCY


class Account(models.Model):
    class Kind(models.TextChoices):
        USER = "user", _("player wallet")
        TABLE_BANK = "table_bank", _("table bank")
        HOUSE = "house", _("house")
        EXTERNAL = "external", _("external cash")
        # Withdrawals asked for and not yet paid out or returned: held apart from the wallet so
        # the same money cannot be staked while staff decide.
        PENDING_PAYOUTS = "pending_payouts", _("pending withdrawals")
        # A tournament's entries (buy-ins and fees) until its prizes are paid or they return.
        TOURNAMENT_POOL = "tournament_pool", _("tournament pool")

    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    currency = models.CharField(_("currency"), max_length=3, default=default_currency)
    balance = models.BigIntegerField(_("balance"), default=0)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="wallet_accounts",
    )
    table_id = models.BigIntegerField(_("table"), null=True, blank=True)
    tournament_id = models.BigIntegerField(_("tournament"), null=True, blank=True)
    # External cash is kept per payment provider, so each provider's money can be reconciled.
    provider = models.CharField(_("payment provider"), max_length=32, blank=True, default="")
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        verbose_name = _("account")
        verbose_name_plural = _("accounts")
        ordering = ["id"]
        permissions = [("adjust_balance", _("Can credit or debit a player's wallet"))]
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=Q(kind="user"), name="wallet_one_account_per_user"
            ),
            models.UniqueConstraint(
                fields=["table_id"],
                condition=Q(kind="table_bank"),
                name="wallet_one_bank_per_table",
            ),
            models.UniqueConstraint(
                fields=["tournament_id"],
                condition=Q(kind="tournament_pool"),
                name="wallet_one_pool_per_tournament",
            ),
            models.UniqueConstraint(
                fields=["kind"],
                condition=Q(kind__in=["house", "pending_payouts"]),
                name="wallet_one_house_one_pending_payouts",
            ),
            models.UniqueConstraint(
                fields=["provider"],
                condition=Q(kind="external"),
                name="wallet_one_external_per_provider",
            ),
            models.CheckConstraint(
                condition=Q(
                    kind="user",
                    user__isnull=False,
                    table_id__isnull=True,
                    tournament_id__isnull=True,
                )
                | Q(
                    kind="table_bank",
                    user__isnull=True,
                    table_id__isnull=False,
                    tournament_id__isnull=True,
                )
                | Q(
                    kind="tournament_pool",
                    user__isnull=True,
                    table_id__isnull=True,
                    tournament_id__isnull=False,
                )
                | Q(
                    kind__in=["house", "external", "pending_payouts"],
                    user__isnull=True,
                    table_id__isnull=True,
                    tournament_id__isnull=True,
                ),
                name="wallet_account_owner_matches_kind",
            ),
            models.CheckConstraint(
                condition=Q(kind="external") | Q(provider=""),
                name="wallet_provider_only_on_external",
            ),
            models.CheckConstraint(
                condition=~Q(kind="pending_payouts") | Q(balance__gte=0),
                name="wallet_pending_payouts_not_negative",
            ),
            models.CheckConstraint(
                condition=~Q(kind="user") | Q(balance__gte=0),
                name="wallet_user_balance_not_negative",
            ),
            models.CheckConstraint(
                condition=~Q(kind="table_bank") | Q(balance__gte=0),
                name="wallet_table_bank_not_negative",
            ),
            models.CheckConstraint(
                condition=~Q(kind="tournament_pool") | Q(balance__gte=0),
                name="wallet_tournament_pool_not_negative",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.USER:
            return f"{self.get_kind_display()}: {self.user}"
        if self.kind == self.Kind.TABLE_BANK:
            return f"{self.get_kind_display()} #{self.table_id}"
        if self.kind == self.Kind.TOURNAMENT_POOL:
            return f"{self.get_kind_display()} #{self.tournament_id}"
        if self.provider:
            return f"{self.get_kind_display()}: {self.provider}"
        return str(self.get_kind_display())


# Accounts that hold real money of someone and so can never owe.
NEVER_NEGATIVE = (
    Account.Kind.USER,
    Account.Kind.TABLE_BANK,
    Account.Kind.PENDING_PAYOUTS,
    Account.Kind.TOURNAMENT_POOL,
)


class LedgerTransaction(models.Model):
    class Kind(models.TextChoices):
        DEPOSIT = "deposit", _("deposit")
        WITHDRAWAL = "withdrawal", _("withdrawal")
        WITHDRAWAL_HOLD = "withdraw_hold", _("withdrawal requested")
        WITHDRAWAL_RETURN = "withdraw_return", _("withdrawal returned")
        STAKE_HOLD = "stake_hold", _("stake held")
        STAKE_RELEASE = "stake_release", _("stake returned")
        BANK_SETTLE = "bank_settle", _("bank paid out")
        TOURNAMENT_ENTRY = "tourney_entry", _("tournament entry")
        TOURNAMENT_REFUND = "tourney_refund", _("tournament entry returned")
        TOURNAMENT_PAYOUT = "tourney_payout", _("tournament prizes")
        ADJUSTMENT = "adjustment", _("adjustment by staff")
        BONUS = "bonus", _("bonus from staff")
        # Play-money sites only (wallet.play_money): the daily free chips, from the house.
        CHIPS_TOP_UP = "chips_top_up", _("free chips")
        # A deposit paid back through its provider, and its return if the provider refuses.
        REFUND = "refund", _("refund")
        REFUND_RETURN = "refund_return", _("refund returned")

    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    idempotency_key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    # sha256 of the command's content: the same key with other content is refused.
    fingerprint = models.CharField(_("request fingerprint"), max_length=64)
    memo = models.TextField(_("memo"), blank=True)
    initiated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("initiated by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    # Plain ids, not foreign keys: the wallet does not depend on the games app.
    table_id = models.BigIntegerField(_("table"), null=True, blank=True, db_index=True)
    game_id = models.BigIntegerField(_("game"), null=True, blank=True, db_index=True)

    class Meta:
        verbose_name = _("transaction")
        verbose_name_plural = _("transactions")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()}"


class Entry(models.Model):
    transaction = models.ForeignKey(
        LedgerTransaction,
        verbose_name=_("transaction"),
        on_delete=models.PROTECT,
        related_name="entries",
    )
    account = models.ForeignKey(
        Account, verbose_name=_("account"), on_delete=models.PROTECT, related_name="entries"
    )
    amount = models.BigIntegerField(_("amount"))
    balance_after = models.BigIntegerField(_("balance after"))

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="wallet_entry_amount_not_zero"),
            models.UniqueConstraint(
                fields=["transaction", "account"], name="wallet_one_entry_per_account"
            ),
        ]
        indexes = [models.Index(fields=["account", "id"], name="wallet_entry_account_id")]

    def __str__(self) -> str:
        return f"{self.account}: {self.amount:+d}"


class Payment(models.Model):
    """A deposit through a payment provider, from the player's request to its outcome.

    The wallet is credited when the provider's signed notification says the payment succeeded,
    exactly once per provider payment id (the ledger key is built from it).
    """

    class Status(models.TextChoices):
        CREATED = "created", pgettext_lazy("payment", "created")
        PENDING = "pending", pgettext_lazy("payment", "awaiting payment")
        SUCCEEDED = "succeeded", pgettext_lazy("payment", "credited")
        FAILED = "failed", pgettext_lazy("payment", "failed")
        EXPIRED = "expired", pgettext_lazy("payment", "expired")

    OPEN_STATUSES = (Status.CREATED, Status.PENDING)

    class Review(models.TextChoices):
        """Why staff must look at a payment the provider took money for."""

        NONE = "", _("nothing to review")
        LATE_OVER_LIMITS = "late_over_limits", _("credited late, past the player's limits")
        NOT_CREDITED = "not_credited", _("paid at the provider, not credited")

    # Our id of the payment, sent to the provider and echoed in its notifications.
    reference = models.UUIDField(_("reference"), default=uuid.uuid4, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="payments",
    )
    provider = models.CharField(_("payment provider"), max_length=32)
    # Known once the provider notifies, or from the start where the provider names it then.
    provider_payment_id = models.CharField(_("provider's payment id"), max_length=200, blank=True)
    # How the player paid, as the provider reports it: its method ("bank_card", "sbp", ...)
    # and, for a card, its last four digits. Statements name the deposit by them.
    payment_method = models.CharField(_("payment method"), max_length=32, blank=True)
    card_last4 = models.CharField(_("card's last four digits"), max_length=4, blank=True)
    amount = models.BigIntegerField(_("amount"))
    currency = models.CharField(_("currency"), max_length=3, default=default_currency)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.CREATED
    )
    failure_reason = models.CharField(_("failure reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires"))
    transaction = models.OneToOneField(
        LedgerTransaction,
        verbose_name=_("transaction"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payment",
    )
    review = models.CharField(
        _("for staff review"), max_length=16, choices=Review.choices, blank=True, default=""
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reviewed by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    reviewed_at = models.DateTimeField(_("reviewed"), null=True, blank=True)

    class Meta:
        verbose_name = _("payment")
        verbose_name_plural = _("payments")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "provider_payment_id"],
                condition=~Q(provider_payment_id=""),
                name="wallet_one_payment_per_provider_id",
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_payment_positive"),
            models.CheckConstraint(
                condition=Q(status="succeeded", transaction__isnull=False)
                | (~Q(status="succeeded") & Q(transaction__isnull=True)),
                name="wallet_payment_credited_iff_succeeded",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "expires_at"], name="wallet_payment_open"),
            models.Index(
                fields=["id"],
                condition=~Q(review="") & Q(reviewed_at__isnull=True),
                name="wallet_payment_review_queue",
            ),
        ]
        permissions = [("refund_payment", _("Can refund payments and close their reviews"))]

    def __str__(self) -> str:
        return f"{self.provider} {self.reference}"


class Refund(models.Model):
    """Money of a succeeded payment paid back to the player through its provider.

    The amount leaves the player's wallet when staff ask for the refund; if the provider
    refuses it, the amount returns to the wallet.
    """

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("refund", "pending")
        SUCCEEDED = "succeeded", pgettext_lazy("refund", "refunded")
        FAILED = "failed", pgettext_lazy("refund", "refused by the provider")

    # Our id of the refund, the provider's idempotence key.
    reference = models.UUIDField(_("reference"), default=uuid.uuid4, unique=True, editable=False)
    payment = models.ForeignKey(
        Payment, verbose_name=_("payment"), on_delete=models.PROTECT, related_name="refunds"
    )
    amount = models.BigIntegerField(_("amount"))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    provider_refund_id = models.CharField(_("provider's refund id"), max_length=200, blank=True)
    reason = models.TextField(_("reason"))
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)
    transaction = models.OneToOneField(
        LedgerTransaction,
        verbose_name=_("transaction"),
        on_delete=models.PROTECT,
        related_name="refund",
    )
    return_transaction = models.OneToOneField(
        LedgerTransaction,
        verbose_name=_("return transaction"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="refund_returned",
    )

    class Meta:
        verbose_name = _("refund")
        verbose_name_plural = _("refunds")
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_refund_positive"),
            models.CheckConstraint(
                condition=Q(status="failed", return_transaction__isnull=False)
                | (~Q(status="failed") & Q(return_transaction__isnull=True)),
                name="wallet_refund_returned_iff_failed",
            ),
        ]
        indexes = [models.Index(fields=["status", "id"], name="wallet_refund_pending")]

    def __str__(self) -> str:
        return f"{self.payment} −{self.amount}"


class Withdrawal(models.Model):
    """A player's request to take money out, decided by staff.

    The amount sits in the pending-withdrawals account from the request until it is paid out
    (approved) or returned to the wallet (rejected by staff, cancelled by the player).
    """

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("withdrawal", "pending")
        APPROVED = "approved", pgettext_lazy("withdrawal", "paid out")
        REJECTED = "rejected", pgettext_lazy("withdrawal", "rejected")
        CANCELLED = "cancelled", pgettext_lazy("withdrawal", "cancelled")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="withdrawals",
    )
    amount = models.BigIntegerField(_("amount"))
    currency = models.CharField(_("currency"), max_length=3, default=default_currency)
    payout_details = models.TextField(_("payout details"), max_length=500)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    # Above the four-eyes amount, a first staff approval comes before the final one.
    first_approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("first approved by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    first_approved_at = models.DateTimeField(_("first approved"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    payout_reference = models.CharField(_("payout reference"), max_length=200, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    hold_transaction = models.OneToOneField(
        LedgerTransaction,
        verbose_name=_("request transaction"),
        on_delete=models.PROTECT,
        related_name="withdrawal_held",
    )
    settle_transaction = models.OneToOneField(
        LedgerTransaction,
        verbose_name=_("payout or return transaction"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="withdrawal_settled",
    )

    class Meta:
        verbose_name = _("withdrawal")
        verbose_name_plural = _("withdrawals")
        ordering = ["-id"]
        permissions = [("approve_withdrawal", _("Can approve or reject withdrawals"))]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_withdrawal_positive"),
            models.CheckConstraint(
                condition=Q(status="pending", settle_transaction__isnull=True)
                | (~Q(status="pending") & Q(settle_transaction__isnull=False)),
                name="wallet_withdrawal_settled_iff_decided",
            ),
        ]
        indexes = [models.Index(fields=["status", "id"], name="wallet_withdrawal_queue")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.user}"


class PlayerLimit(models.Model):
    """A limit a player set for himself. A lower one applies at once; a higher one (or none)
    only after a cooling-off delay, kept in ``pending_value`` until ``pending_from``."""

    class Kind(models.TextChoices):
        DEPOSIT_DAY = "deposit_day", _("deposits per day")
        DEPOSIT_WEEK = "deposit_week", _("deposits per week")
        DEPOSIT_MONTH = "deposit_month", _("deposits per month")
        LOSS_DAY = "loss_day", _("losses per day")
        LOSS_WEEK = "loss_week", _("losses per week")
        LOSS_MONTH = "loss_month", _("losses per month")
        PLAY_REMINDER = "play_reminder", _("reminder after minutes of play")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="limits",
    )
    kind = models.CharField(_("limit"), max_length=16, choices=Kind.choices)
    # Minor units for money limits, minutes for the reminder; None means no limit.
    value = models.BigIntegerField(_("value"), null=True, blank=True)
    pending_value = models.BigIntegerField(_("pending value"), null=True, blank=True)
    pending_from = models.DateTimeField(_("pending value applies from"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)

    class Meta:
        verbose_name = _("player limit")
        verbose_name_plural = _("player limits")
        ordering = ["user_id", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="wallet_one_limit_per_kind"),
            models.CheckConstraint(
                condition=(Q(value__isnull=True) | Q(value__gt=0))
                & (Q(pending_value__isnull=True) | Q(pending_value__gt=0)),
                name="wallet_limit_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.get_kind_display()}"

    def effective(self, now) -> int | None:
        if self.pending_from is not None and self.pending_from <= now:
            return self.pending_value
        return self.value


class SelfExclusion(models.Model):
    """A break a player took from play; ``ends_at`` None is for good. Never shortened."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="breaks",
    )
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    ends_at = models.DateTimeField(_("ends"), null=True, blank=True)

    class Meta:
        verbose_name = _("break from play")
        verbose_name_plural = _("breaks from play")
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "ends_at"], name="wallet_break_user")]

    def __str__(self) -> str:
        return f"{self.user}: {self.started_at:%Y-%m-%d}"
