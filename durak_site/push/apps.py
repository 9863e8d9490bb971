from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PushConfig(AppConfig):
    name = "durak_site.push"
    label = "push"
    verbose_name = _("Push notifications")
    default_auto_field = "django.db.models.BigAutoField"
