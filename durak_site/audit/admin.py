"""The audit trail in the admin: staff may look and export, never add, change or delete."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from durak_site.audit.models import StaffAction
from durak_site.audit.resources import StaffActionResource
from durak_site.staff.exports import SpreadsheetExportMixin
from durak_site.staff.readonly_admin import ReadOnlyAdmin


@admin.register(StaffAction)
class StaffActionAdmin(SpreadsheetExportMixin, ReadOnlyAdmin):
    resource_classes = [StaffActionResource]
    list_display = ["id", "created_at", "staff", "action", "player", "shown_target", "reason"]
    list_filter = ["action", ("staff", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["reason", "action", "staff__username", "player__username", "target_id"]
    date_hierarchy = "created_at"
    list_select_related = ["staff", "player"]
    fields = [
        "created_at",
        "staff",
        "action",
        "player",
        "shown_target",
        "reason",
        "details",
        "idempotency_key",
    ]
    readonly_fields = fields

    @admin.display(description=_("target"))
    def shown_target(self, record: StaffAction) -> str:
        return record.target or "—"
