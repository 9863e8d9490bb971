"""The staff admin site: page titles that read well in Russian, and reports among the models.

Django's admin builds titles as "Select %s to view", "Change %s", "Add %s" around a model's
nominative name, which Russian needs in the accusative («Выберите игру», not «Выберите
игра»). Every model admin registered here gets titles built from the accusative forms in the
catalogs: ``pgettext("accusative", name)`` and ``pgettext("accusative plural", "selected " +
plural name)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.urls import reverse
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


@dataclass(frozen=True)
class AppLink:
    """A page of an app that is no model's list (a report), shown among the app's models."""

    app_label: str
    name: str
    url_name: str
    permission: str


class StaffAdminSite(admin.AdminSite):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._app_links: list[AppLink] = []

    def add_app_link(self, app_label: str, name, url_name: str, permission: str) -> None:
        self._app_links.append(AppLink(app_label, name, url_name, permission))

    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)
        for app in apps:
            for link in self._app_links:
                if link.app_label == app["app_label"] and request.user.has_perm(link.permission):
                    app["models"].append(
                        {
                            "name": link.name,
                            "object_name": link.url_name,
                            "admin_url": reverse(link.url_name),
                            "view_only": True,
                            "perms": {"view": True},
                        }
                    )
        return apps

    def register(self, model_or_iterable, admin_class=None, **options):
        admin_class = admin_class or admin.ModelAdmin
        titled = type(admin_class.__name__, (AccusativeTitlesMixin, admin_class), {})
        titled.__module__ = admin_class.__module__
        titled.__qualname__ = admin_class.__qualname__
        return super().register(model_or_iterable, titled, **options)


class StaffAdminConfig(AdminConfig):
    default_site = "durak_site.staff.admin_site.StaffAdminSite"
