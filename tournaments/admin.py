"""Staff pages: tournaments made and cancelled (with refunds and an audit-trail record), the
recurring templates, and exports of entries, games and payouts."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from durak_site.staff.exports import SpreadsheetExportMixin
from tournaments import services
from tournaments.models import Entry, Template, Tournament
from tournaments.resources import EntryResource, PayoutResource, TournamentGameResource
from tournaments.services import SETTINGS_FIELDS, TournamentError

FORMAT_FIELDS = ["kind", "seats", "table_size", "minutes", "min_players"]
MONEY_FIELDS = ["buy_in", "fee", "house_prize", "prize_percentages", "prize_top_percent"]
GAME_FIELDS = ["turn_seconds", "throw_seconds", "transfer", "deck", "throw_in", "limit"]
TEMPLATE_FIELDS = ["active", *SETTINGS_FIELDS, "local_time", "weekdays", "announce_hours"]


def clean_prize_table(cleaned: dict) -> None:
    percentages = cleaned.get("prize_percentages") or []
    if percentages and (
        not isinstance(percentages, list)
        or not all(type(p) is int and p > 0 for p in percentages)
        or sum(percentages) != 100
    ):
        raise forms.ValidationError(_("The prize table is whole percentages adding up to 100."))
    if not percentages and not cleaned.get("prize_top_percent"):
        raise forms.ValidationError(_("Give a prize table or the paid share of the field."))
    if cleaned.get("kind") == "arena" and not cleaned.get("minutes"):
        raise forms.ValidationError(_("An Arena has a length."))
    if cleaned.get("kind") == "sitgo" and not cleaned.get("seats"):
        raise forms.ValidationError(_("A Sit & Go has a number of players."))


class TournamentForm(forms.ModelForm):
    cancel_now = forms.BooleanField(
        label=_("Cancel now and return every entry"),
        required=False,
        help_text=_("Give the reason in «why cancelled»; it goes to the audit trail."),
    )

    class Meta:
        model = Tournament
        fields = ["name", *FORMAT_FIELDS, "starts_at", *MONEY_FIELDS, *GAME_FIELDS, "cancel_reason"]

    def clean(self) -> dict:
        cleaned = super().clean()
        if not self.cleaned_data.get("cancel_now"):
            clean_prize_table(cleaned)
        elif not (cleaned.get("cancel_reason") or "").strip():
            raise forms.ValidationError(_("A cancellation needs a reason."))
        return cleaned


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    """Entries as their commands left them: read only."""

    list_display = ["tournament", "user", "status", "points_shown", "games", "place", "prize"]
    list_filter = ["status"]
    list_select_related = ["tournament", "user"]
    search_fields = ["user__username", "tournament__name"]
    raw_id_fields = ["tournament", "user", "last_game"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(SpreadsheetExportMixin, admin.ModelAdmin):
    form = TournamentForm
    resource_classes = [EntryResource, TournamentGameResource, PayoutResource]
    list_display = ["name", "kind", "status", "starts_at", "buy_in", "fee", "house_prize"]
    list_filter = ["status", "kind"]
    search_fields = ["name"]

    def get_fields(self, request, obj=None) -> list[str]:
        fields = ["name", *FORMAT_FIELDS, "starts_at", *MONEY_FIELDS, *GAME_FIELDS]
        if obj is not None:
            fields += ["status", "round", "started_at", "ends_at", "finished_at", "payout"]
            fields += ["template", "created_by", "cancel_reason", "cancel_now"]
        return fields

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        if obj is None:
            return []
        fixed = ["status", "round", "started_at", "ends_at", "finished_at", "payout"]
        fixed += ["template", "created_by"]
        # Once anyone has paid to enter, what he paid for stays as it was.
        if obj.entries.exists() or obj.status != Tournament.Status.REGISTERING:
            fixed += [*FORMAT_FIELDS, "starts_at", *MONEY_FIELDS, *GAME_FIELDS]
        if obj.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            fixed += ["name", "cancel_reason"]
        return fixed

    def save_model(self, request, obj: Tournament, form, change: bool) -> None:
        if form.cleaned_data.get("cancel_now"):
            try:
                services.tournament_cancel(
                    tournament_id=obj.pk, reason=obj.cancel_reason, staff_user=request.user
                )
            except TournamentError as error:
                self.message_user(request, error.message, messages.ERROR)
            return
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class TemplateForm(forms.ModelForm):
    class Meta:
        model = Template
        fields = TEMPLATE_FIELDS

    def clean(self) -> dict:
        cleaned = super().clean()
        clean_prize_table(cleaned)
        return cleaned


@admin.register(Template)
class TemplateAdmin(admin.ModelAdmin):
    """«Every day at 20:00, Arena 30 min, buy-in 100 ₽»: beat makes each tournament in time."""

    form = TemplateForm
    list_display = ["name", "kind", "local_time", "minutes", "buy_in", "fee", "active"]
    list_filter = ["active", "kind"]
    fields = TEMPLATE_FIELDS
