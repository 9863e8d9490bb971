from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import MAX_PLAYERS, MIN_PLAYERS
from games.models import BotLevel
from games.reports import GROUPING_LABELS
from games.services.chat import BAN_HOURS
from wallet.forms import DATE_PICKER, PeriodForm
from wallet.money import money_label, parse_major_units

SEAT_CHOICES = [(n, str(n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
TURN_CHOICES = [(15, _("15 s")), (30, _("30 s")), (45, _("45 s")), (60, _("60 s"))]
THROW_CHOICES = [(5, _("5 s")), (10, _("10 s")), (15, _("15 s")), (20, _("20 s"))]


class StakeForm(forms.Form):
    """A stake typed in roubles and handed on in kopecks."""

    stake = forms.DecimalField(
        label=money_label(_("Stake")),
        min_value=Decimal("0.01"),
        max_value=Decimal("1000000"),
        decimal_places=2,
        initial=Decimal("100"),
        widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}),
    )

    def clean_stake(self) -> int:
        return parse_major_units(self.cleaned_data["stake"])


class TableCreateForm(StakeForm):
    """A new table."""

    seats = forms.TypedChoiceField(label=_("Players"), choices=SEAT_CHOICES, coerce=int, initial=2)
    turn_seconds = forms.TypedChoiceField(
        label=_("Time per move"), choices=TURN_CHOICES, coerce=int, initial=30
    )
    throw_seconds = forms.TypedChoiceField(
        label=_("Time to throw in"), choices=THROW_CHOICES, coerce=int, initial=10
    )
    private = forms.BooleanField(label=_("Private table (by invitation link only)"), required=False)


class ReportPeriodForm(PeriodForm):
    """The period of a staff report, at most a year of it."""

    MAX_DAYS = 366

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and (until - since).days >= self.MAX_DAYS:
            raise forms.ValidationError(_("Choose a period of at most a year."))
        return data


class OperationsReportForm(ReportPeriodForm):
    """The period and grouping of the operations report."""

    grouping = forms.ChoiceField(label=_("Group"), choices=list(GROUPING_LABELS.items()))


class StakeBlockQuickForm(forms.Form):
    """A block from tables with stakes, from the fair-play page: until the end of a local day."""

    user = forms.ModelChoiceField(queryset=get_user_model().objects.all(), widget=forms.HiddenInput)
    reason = forms.CharField(label=_("Reason"), max_length=500)
    until = forms.DateField(label=_("Blocked until (inclusive)"), widget=DATE_PICKER)

    def clean_until(self) -> date:
        until = self.cleaned_data["until"]
        if until < timezone.localdate():
            raise forms.ValidationError(_("The block must end in the future."))
        return until

    @property
    def ends_at(self) -> datetime:
        """The start of the day after the last blocked day, in the site's time zone."""
        next_day = self.cleaned_data["until"] + timedelta(days=1)
        return datetime.combine(next_day, time.min, tzinfo=timezone.get_current_timezone())


class PracticeForm(forms.Form):
    """A practice game against bots: how many players in all, and how strong the bots are."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("auto_id", "practice_%s")  # shares the lobby page with other forms
        super().__init__(*args, **kwargs)

    seats = forms.TypedChoiceField(label=_("Players"), choices=SEAT_CHOICES, coerce=int, initial=4)
    level = forms.ChoiceField(label=_("Bots"), choices=BotLevel.choices, initial=BotLevel.AMATEUR)


class QuickPlayForm(StakeForm):
    """One click to a seat: the stake, and the number of players or any."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("auto_id", "quick_%s")  # shares the lobby page with other forms
        super().__init__(*args, **kwargs)

    seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[("", _("any")), *SEAT_CHOICES],
        coerce=int,
        empty_value=None,
        required=False,
    )


class ChatBanForm(forms.Form):
    """Staff mute a reported player in every table chat for a while, and say why."""

    hours = forms.TypedChoiceField(
        label=_("Mute for"),
        coerce=int,
        choices=list(
            zip(BAN_HOURS, [_("1 hour"), _("1 day"), _("1 week"), _("30 days")], strict=True)
        ),
        initial=24,
    )
    reason = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 3})
    )
