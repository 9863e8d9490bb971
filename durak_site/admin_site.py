"""The staff admin site: page titles that read well in Russian.

Django's admin builds titles as "Select %s to view", "Change %s", "Add %s" around a model's
nominative name, which Russian needs in the accusative («Выберите игру», not «Выберите
игра»). Every model admin registered here gets titles built from the accusative forms in the
catalogs: ``pgettext("accusative", name)`` and ``pgettext("accusative plural", "selected " +
plural name)``.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.utils import translation
from django.utils.translation import gettext, pgettext


def _english(text) -> str:
    with translation.override("en"):
        return str(text)


def accusative(opts) -> str:
    """The model's name as the object of a verb: игру, проводку, игрока."""
    return pgettext("accusative", _english(opts.verbose_name))


def selected_plural(opts) -> str:
    """«выбранных игроков»: the adjective agrees with an animate noun too."""
    return pgettext("accusative plural", f"selected {_english(opts.verbose_name_plural)}")


class AccusativeTitlesMixin:
    """Changelist, change form and bulk-delete titles with the model name in the accusative."""

    def changelist_view(self, request, extra_context=None):
        if self.has_change_permission(request):
            title = gettext("Select %s to change")
        else:
            title = gettext("Select %s to view")
        name = accusative(self.opts)
        context = {"title": title % name, "add_label": gettext("Add %s") % name}
        return super().changelist_view(request, {**context, **(extra_context or {})})

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if object_id is None:
            title = gettext("Add %s")
        elif self.has_change_permission(request):
            title = gettext("Change %s")
        else:
            title = gettext("View %s")
        context = {"title": title % accusative(self.opts)}
        return super().changeform_view(
            request, object_id, form_url, {**context, **(extra_context or {})}
        )

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            function, name, _description = actions["delete_selected"]
            description = gettext("Delete %s") % selected_plural(self.opts)
            actions["delete_selected"] = (function, name, description)
        return actions


class StaffAdminSite(admin.AdminSite):
    def register(self, model_or_iterable, admin_class=None, **options):
        admin_class = admin_class or admin.ModelAdmin
        titled = type(admin_class.__name__, (AccusativeTitlesMixin, admin_class), {})
        titled.__module__ = admin_class.__module__
        titled.__qualname__ = admin_class.__qualname__
        return super().register(model_or_iterable, titled, **options)


class StaffAdminConfig(AdminConfig):
    default_site = "durak_site.admin_site.StaffAdminSite"
