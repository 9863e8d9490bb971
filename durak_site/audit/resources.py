"""Export layout of the staff audit trail (see ``durak_site.staff.exports`` for the files)."""

from __future__ import annotations

import json

from django.utils.translation import gettext_lazy as _
from import_export import resources

from durak_site.audit.models import StaffAction
from durak_site.staff.exports import number_column, text_column, time_column


class StaffActionResource(resources.ModelResource):
    file_name = "staff-actions"

    id = number_column(_("record no."), "id")
    created_at = time_column(_("when"), "created_at")
    staff = text_column(_("staff member"), "staff__username")
    action = text_column(_("action"), "action")
    player = text_column(_("player"), "player__username")
    target = text_column(_("target"), "target")
    reason = text_column(_("reason"), "reason")
    details = text_column(_("details"))

    class Meta:
        model = StaffAction
        name = _("staff actions")
        fields = ("id", "created_at", "staff", "action", "player", "target", "reason", "details")
        export_order = fields

    def dehydrate_details(self, record: StaffAction) -> str:
        return json.dumps(record.details, ensure_ascii=False) if record.details else ""
