"""Staff views of tables and games; payout schemes are editable, the game log is not."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.defaultfilters import floatformat
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from durak_site.staff.exports import SpreadsheetExportMixin
from durak_site.staff.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from games import admin_reports, services
from games.forms import ChatBanForm
from games.models import (
    BankDistribution,
    ChatBan,
    ChatMessage,
    ChatReport,
    Game,
    GameAnalysis,
    GameEvent,
    PayoutScheme,
    Puzzle,
    Seat,
    StakeBlock,
    Table,
)
from games.resources import GameResource, PayoutResource
from games.services import GameError
from wallet.money import money_display


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = [
        "position",
        "user",
        "joined_at",
        "left_at",
        "server_moves",
        "away",
        "disconnected_at",
        "client_address",
        "browser_id",
    ]
    readonly_fields = fields


class GameEventInline(ReadOnlyInline):
    model = GameEvent
    fields = ["version", "bout", "seat", "action", "automatic", "created_at"]
    readonly_fields = fields


class ChatMessageInline(ReadOnlyInline):
    model = ChatMessage
    fields = ["created_at", "author", "text", "phrase"]
    readonly_fields = fields


class BankDistributionInline(ReadOnlyInline):
    model = BankDistribution
    fields = ["place", "user", "seat", "shown_percent", "shown_amount"]
    readonly_fields = fields
    shown_amount = money_display("amount", _("paid out"))

    @admin.display(description=_("share of the bank, %"))
    def shown_percent(self, share: BankDistribution) -> str:
        return floatformat(share.percent, -2)


# A table's and a game's options (RULES.md §7), as staff see and filter them.
OPTION_FIELDS = ["transfer", "deck", "throw_in", "limit"]


@admin.display(description=_("rules"))
def rules(obj: Table | Game) -> str:
    return obj.options_summary


class StakeFilter(admin.SimpleListFilter):
    title = _("stake")
    parameter_name = "stake_range"
    # Upper bounds in minor units.
    RANGES = {"small": (0, 10_000), "medium": (10_000, 100_000), "large": (100_000, None)}

    def lookups(self, request, model_admin):
        return [
            ("small", _("up to 100")),
            ("medium", _("100 to 1 000")),
            ("large", _("over 1 000")),
        ]

    def queryset(self, request, queryset: QuerySet) -> QuerySet:
        bounds = self.RANGES.get(self.value())
        if bounds is None:
            return queryset
        low, high = bounds
        queryset = queryset.filter(stake__gt=low)
        return queryset if high is None else queryset.filter(stake__lte=high)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "shown_stake",
        "seat_count",
        rules,
        "status",
        "private",
        "commission_percent",
        "created_by",
        "created_at",
    ]
    list_filter = [
        "status",
        "private",
        StakeFilter,
        *OPTION_FIELDS,
        ("created_at", admin.DateFieldListFilter),
    ]
    search_fields = ["id", "created_by__username"]
    # Only the house commission of future games is staff's to change.
    fields = [
        "stake",
        "seat_count",
        *OPTION_FIELDS,
        "turn_seconds",
        "throw_seconds",
        "commission_percent",
        "private",
        "status",
        "created_by",
        "created_at",
    ]
    inlines = [SeatInline]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        # The running game settles with the commission it started with.
        if obj is not None and obj.status == Table.Status.PLAYING:
            return self.fields
        return [name for name in self.fields if name != "commission_percent"]

    def save_model(self, request, obj: Table, form, change: bool) -> None:
        if "commission_percent" not in form.changed_data:
            return
        try:
            services.table_set_commission(
                table_id=obj.pk, commission_percent=form.cleaned_data["commission_percent"]
            )
        except GameError as error:
            messages.error(request, error.message)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    shown_stake = money_display("stake", _("stake"))


@admin.register(Game)
class GameAdmin(SpreadsheetExportMixin, admin.ModelAdmin):
    resource_classes = [GameResource, PayoutResource]
    list_display = [
        "id",
        "table",
        "number",
        "status",
        "shown_stake",
        "shown_bank",
        "shown_commission",
        rules,
        "started_at",
        "finished_at",
    ]
    list_filter = [
        "status",
        StakeFilter,
        *OPTION_FIELDS,
        ("started_at", admin.DateFieldListFilter),
    ]
    search_fields = ["id", "table__id"]
    date_hierarchy = "started_at"
    inlines = [BankDistributionInline, GameEventInline, ChatMessageInline]

    def get_fields(self, request, obj=None) -> list[str]:
        fields = [
            "table",
            "number",
            "status",
            "player_names",
            "shown_stake",
            "shown_bank",
            "shown_commission",
            *OPTION_FIELDS,
            "percentages",
            "version",
            "deadline",
            "seed_hash",
            "started_at",
            "finished_at",
        ]
        # While a game runs its seed and state hold every hand: nobody may look, staff neither.
        if obj is not None and obj.status != Game.Status.PLAYING:
            fields += ["seed", "state"]
        return fields

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        return self.get_fields(request, obj)

    shown_stake = money_display("stake", _("stake"))
    shown_bank = money_display("bank", _("bank"))
    shown_commission = money_display("commission", _("commission"))

    @admin.display(description=_("players"))
    def player_names(self, game: Game) -> str:
        names = dict(game.table.seat_set.values_list("user_id", "user__username"))
        return ", ".join(names.get(user_id, str(user_id)) for user_id in game.players)

    def get_queryset(self, request) -> QuerySet:
        return super().get_queryset(request).select_related("table")

    def get_urls(self):
        return [
            path(
                "operations/",
                self.admin_site.admin_view(self.operations_view),
                name="games_operations_report",
            ),
            path(
                "fair-play/",
                self.admin_site.admin_view(self.fair_play_view),
                name="games_fair_play",
            ),
            path(
                "fair-play/block/",
                self.admin_site.admin_view(self.fair_play_block),
                name="games_fair_play_block",
            ),
            *super().get_urls(),
        ]

    def operations_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        return admin_reports.operations_view(self, request)

    def fair_play_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        return admin_reports.fair_play_view(self, request)

    @method_decorator(require_POST)
    def fair_play_block(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("games.add_stakeblock"):
            raise PermissionDenied
        return admin_reports.fair_play_block(self, request)

    def get_export_queryset(self, request) -> QuerySet:
        return (
            super()
            .get_export_queryset(request)
            .prefetch_related("distribution__user", "table__seat_set__user")
        )

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PayoutScheme)
class PayoutSchemeAdmin(admin.ModelAdmin):
    list_display = ["players", "percentages"]
    ordering = ["players"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class StakeBlockForm(forms.ModelForm):
    class Meta:
        model = StakeBlock
        fields = ["user", "reason", "ends_at"]

    def clean_ends_at(self):
        ends_at = self.cleaned_data["ends_at"]
        if ends_at <= timezone.now():
            raise forms.ValidationError(_("The block must end in the future."))
        return ends_at


@admin.register(StakeBlock)
class StakeBlockAdmin(admin.ModelAdmin):
    """Blocks are added with a reason and an end, recorded in the audit trail, never edited."""

    form = StakeBlockForm
    list_display = ["user", "ends_at", "reason", "created_by", "created_at"]
    list_select_related = ["user", "created_by"]
    search_fields = ["user__username", "user__email", "reason"]
    raw_id_fields = ["user"]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        return [] if obj is None else ["user", "reason", "ends_at", "created_by", "created_at"]

    def get_fields(self, request, obj=None) -> list[str]:
        return self.get_readonly_fields(request, obj) or ["user", "reason", "ends_at"]

    def save_model(self, request, obj: StakeBlock, form, change: bool) -> None:
        block = services.stake_block_create(
            staff_user=request.user, user=obj.user, reason=obj.reason, ends_at=obj.ends_at
        )
        obj.pk, obj.created_by, obj.created_at = block.pk, block.created_by, block.created_at

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def _game_links(game_id: int | None) -> str:
    if game_id is None:
        return "—"
    return format_html(
        '<a href="{}">#{}</a> · <a href="{}">{}</a>',
        reverse("admin:games_game_change", args=[game_id]),
        game_id,
        reverse("game_detail", args=[game_id]),
        _("replay"),
    )


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):
    """The staff queue of reported chat messages: mute the author for a while, or dismiss."""

    list_display = [
        "id",
        "created_at",
        "shown_message",
        "author",
        "game",
        "reporter",
        "status",
        "mute",
    ]
    list_filter = ["status"]
    search_fields = ["message__text", "message__author__username", "reporter__username"]
    list_select_related = ["message__author", "reporter"]
    fields = ["created_at", "shown_message", "author", "game", "reporter", "status"]
    readonly_fields = fields
    actions = ["dismiss"]

    @admin.display(description=_("message"))
    def shown_message(self, report: ChatReport) -> str:
        return str(report.message)

    @admin.display(description=_("author"))
    def author(self, report: ChatReport) -> str:
        return report.message.author.username

    @admin.display(description=_("game"))
    def game(self, report: ChatReport) -> str:
        return _game_links(report.message.game_id)

    @admin.display(description=_("mute"))
    def mute(self, report: ChatReport) -> str:
        if report.status != ChatReport.Status.OPEN:
            return "—"
        url = reverse("admin:games_chatreport_mute", args=[report.pk])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Mute the author"))

    @admin.action(description=_("Dismiss the selected reports"), permissions=["change"])
    def dismiss(self, request: HttpRequest, queryset: QuerySet) -> None:
        count = services.chat_reports_dismiss(
            staff=request.user, report_ids=list(queryset.values_list("pk", flat=True))
        )
        messages.success(request, _("Reports dismissed: %(count)s.") % {"count": count})

    def get_urls(self):
        return [
            path(
                "<int:report_id>/mute/",
                self.admin_site.admin_view(self.mute_view),
                name="games_chatreport_mute",
            ),
            *super().get_urls(),
        ]

    def mute_view(self, request: HttpRequest, report_id: int) -> HttpResponse:
        if not self.has_change_permission(request):
            raise PermissionDenied
        report = get_object_or_404(
            ChatReport.objects.select_related("message__author"), pk=report_id
        )
        form = ChatBanForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                ban = services.chat_ban(
                    staff=request.user, report_id=report.pk, **form.cleaned_data
                )
            except ValidationError as error:
                form.add_error(None, error)
            else:
                messages.success(
                    request,
                    _("%(player)s cannot write in the chat until %(until)s.")
                    % {
                        "player": ban.user.username,
                        "until": date_format(timezone.localtime(ban.until), "DATETIME_FORMAT"),
                    },
                )
                return redirect("admin:games_chatreport_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Mute %(player)s in the chat") % {"player": report.message.author.username},
            "intro": _(
                "The reported message: «%(text)s». The player reads every chat but cannot "
                "write in any until the time runs out."
            )
            % {"text": report.message},
            "submit_label": _("Mute"),
            "form": form,
        }
        return TemplateResponse(request, "admin/staff_form.html", context)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "author", "__str__", "table", "shown_game"]
    search_fields = ["text", "author__username", "table__id"]
    list_select_related = ["author", "table"]
    date_hierarchy = "created_at"

    @admin.display(description=_("game"))
    def shown_game(self, message: ChatMessage) -> str:
        return _game_links(message.game_id)


@admin.register(ChatBan)
class ChatBanAdmin(ReadOnlyAdmin):
    list_display = ["id", "user", "until", "reason", "staff", "report", "created_at"]
    search_fields = ["user__username", "reason"]
    list_select_related = ["user", "staff"]


@admin.register(GameAnalysis)
class GameAnalysisAdmin(ReadOnlyAdmin):
    list_display = ["id", "game", "user", "status", "done", "total", "created_at", "finished_at"]
    list_filter = ["status"]
    search_fields = ["user__username", "game__id"]
    list_select_related = ["game", "user"]
    exclude = ["decisions", "costliest"]


@admin.register(Puzzle)
class PuzzleAdmin(ReadOnlyAdmin):
    list_display = ["id", "game", "version", "seat", "attempts", "solved", "mu", "created_at"]
    list_select_related = ["game"]
    search_fields = ["game__id"]


admin.site.add_app_link(
    "games", _("Operations report"), "admin:games_operations_report", "games.view_game"
)
admin.site.add_app_link("games", _("Fair-play signals"), "admin:games_fair_play", "games.view_game")
