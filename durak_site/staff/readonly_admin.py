"""Admin building blocks for records that staff may look at but never edit."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Immutable records (ledger, audit trail): staff may look, never add, change or delete."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
