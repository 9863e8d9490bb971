"""Admin list filters for the ledger: a date range and a player typed by nickname or e-mail."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


def _other_params(changelist, own: list[str]) -> list[tuple[str, str]]:
    """The changelist's other query parameters, kept as hidden inputs of a filter's form."""
    return [
        (key, value)
        for key, values in changelist.filter_params.items()
        for value in values
        if key not in own
    ]


class DateRangeFilter(admin.FieldListFilter):
    """From / to dates (inclusive, local time) on a date-time field."""

    template = "wallet/admin/date_range_filter.html"

    def __init__(self, field, request, params, model, model_admin, field_path):
        self.since_param = f"{field_path}__date__gte"
        self.until_param = f"{field_path}__date__lte"
        super().__init__(field, request, params, model, model_admin, field_path)

    def expected_parameters(self) -> list[str]:
        return [self.since_param, self.until_param]

    def choices(self, changelist):
        own = self.expected_parameters()
        yield {
            "since_param": self.since_param,
            "until_param": self.until_param,
            "since": (self.used_parameters.get(self.since_param) or [""])[-1],
            "until": (self.used_parameters.get(self.until_param) or [""])[-1],
            "hidden": _other_params(changelist, own),
            "clear_url": changelist.get_query_string(remove=own),
        }


class PlayerFilter(admin.SimpleListFilter):
    """Rows that touch one player's wallet, chosen by nickname or e-mail (exact, any case)."""

    title = _("player")
    parameter_name = "player"
    template = "wallet/admin/text_filter.html"
    user_path: str  # path from the listed model to the wallet's user

    def lookups(self, request, model_admin):
        return ()

    def has_output(self) -> bool:
        return True

    def queryset(self, request, queryset):
        value = (self.value() or "").strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(**{f"{self.user_path}__username__iexact": value})
            | Q(**{f"{self.user_path}__email__iexact": value})
        )

    def choices(self, changelist):
        yield {
            "param": self.parameter_name,
            "value": self.value() or "",
            "hidden": _other_params(changelist, [self.parameter_name]),
            "clear_url": changelist.get_query_string(remove=[self.parameter_name]),
        }


class TransactionPlayerFilter(PlayerFilter):
    user_path = "entries__account__user"


class EntryPlayerFilter(PlayerFilter):
    user_path = "account__user"


def titled(list_filter: type[admin.FieldListFilter], title) -> type[admin.FieldListFilter]:
    """``list_filter`` under its own title, where two filtered fields share a verbose name."""

    class Titled(list_filter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.title = title

    return Titled


class ReviewQueueFilter(admin.SimpleListFilter):
    """Payments waiting for staff review (the queue), or every one ever put in it."""

    title = _("staff review")
    parameter_name = "review"

    def lookups(self, request, model_admin):
        return [("open", _("waiting for review")), ("any", _("ever queued"))]

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.exclude(review="").filter(reviewed_at__isnull=True)
        if self.value() == "any":
            return queryset.exclude(review="")
        return queryset
