"""Export layout (django-import-export) of the staff audit trail."""

from __future__ import annotations

from import_export import fields, resources

from durak_site.audit.models import StaffAction


class StaffActionResource(resources.ModelResource):
    staff = fields.Field(attribute="staff__username", column_name="staff")
    player = fields.Field(attribute="player__username", column_name="player")
    target = fields.Field(attribute="target", column_name="target")

    class Meta:
        model = StaffAction
        fields = ("id", "created_at", "staff", "action", "player", "target", "reason", "details")
        export_order = fields
