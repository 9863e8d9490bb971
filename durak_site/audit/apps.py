from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    name = "durak_site.audit"
    label = "audit"
    verbose_name = _("Staff audit trail")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from durak_site.audit import staff_access  # noqa: F401 (connects the receivers)
