from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class StaffAction(models.Model):
    """One recorded staff action. Append-only (enforced by a trigger in the migrations)."""

    created_at = models.DateTimeField(_("when"), default=timezone.now, db_index=True)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("staff member"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    # A dotted code such as "wallet.adjust"; free text so that each area adds its own.
    action = models.CharField(_("action"), max_length=64, db_index=True)
    # The player the action concerns, if any. A foreign key, not a copy of the nickname, so
    # that a closed account reads as anonymised here too.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    # The object acted on, as "app_label.model" and primary key (ledger transaction, payout...).
    target_type = models.CharField(_("target type"), max_length=100, blank=True)
    target_id = models.CharField(_("target id"), max_length=64, blank=True)
    reason = models.TextField(_("reason"))
    details = models.JSONField(_("details"), default=dict, blank=True)
    # Set by callers whose own command is idempotent, so that a retry is recorded once.
    idempotency_key = models.CharField(
        _("idempotency key"), max_length=200, null=True, blank=True, unique=True
    )

    class Meta:
        verbose_name = _("staff action")
        verbose_name_plural = _("staff actions")
        ordering = ["-id"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action}"

    @property
    def target(self) -> str:
        return f"{self.target_type} #{self.target_id}" if self.target_type else ""
