from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import MAX_PLAYERS, MAX_PLAYERS_BY_DECK, MIN_PLAYERS
from games.engine import OPTIONS as ENGINE_OPTIONS
from games.errors import ERROR_MESSAGES
from games.models import SPEED_PRESETS, BotLevel, Deck, Limit, Speed, ThrowIn
from games.selectors.reports import GROUPING_LABELS
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


class OptionsForm(forms.Form):
    """The table options of RULES.md §7 next to a number of players (`seats`), handed on as
    one ``options`` dict; an option not sent keeps its default. `last_options`: the options
    shown first."""

    transfer = forms.TypedChoiceField(
        label=_("Game"),
        choices=[(True, _("transfer (perevodnoy)")), (False, _("throw-in only (podkidnoy)"))],
        coerce=lambda value: value == "True",
        empty_value=ENGINE_OPTIONS["transfer"],
        required=False,
    )
    deck = forms.TypedChoiceField(
        label=_("Deck"),
        choices=Deck.choices,
        coerce=int,
        empty_value=ENGINE_OPTIONS["deck"],
        required=False,
    )
    throw_in = forms.TypedChoiceField(
        label=_("Who throws in"),
        choices=ThrowIn.choices,
        empty_value=ENGINE_OPTIONS["throw_in"],
        required=False,
    )
    limit = forms.TypedChoiceField(
        label=_("Limits"),
        help_text=_(
            "Do zavala: no limit once the defender takes. Classic: at most 6 cards a bout, "
            "5 in the first, and never more than the defender held."
        ),
        choices=Limit.choices,
        empty_value=ENGINE_OPTIONS["limit"],
        required=False,
    )

    def __init__(self, *args, last_options: dict | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, value in (last_options or ENGINE_OPTIONS).items():
            self.fields[name].initial = value

    def clean(self):
        data = super().clean()
        options = {name: data.pop(name) for name in ENGINE_OPTIONS if name in data}
        deck = options.get("deck", ENGINE_OPTIONS["deck"])
        if data.get("seats", 0) > MAX_PLAYERS_BY_DECK[deck]:
            self.add_error("seats", ERROR_MESSAGES["deck_too_small"])
        data["options"] = options
        return data


class TableCreateForm(StakeForm, OptionsForm):
    """A new table: its stake, players, options and speed."""

    field_order = ["stake", "seats", "transfer", "deck", "throw_in", "limit", "speed"]

    seats = forms.TypedChoiceField(label=_("Players"), choices=SEAT_CHOICES, coerce=int, initial=2)
    # A preset sets both times; "" (custom) keeps the two chosen below it.
    speed = forms.ChoiceField(
        label=_("Speed"),
        help_text=_("Seconds per move / to throw in."),
        choices=[
            (Speed.FAST, _("fast: 15 / 5 s")),
            (Speed.NORMAL, _("normal: 30 / 10 s")),
            (Speed.SLOW, _("slow: 60 / 15 s")),
            ("", _("custom")),
        ],
        initial=Speed.NORMAL,
        required=False,
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Time per move"), choices=TURN_CHOICES, coerce=int, initial=30
    )
    throw_seconds = forms.TypedChoiceField(
        label=_("Time to throw in"), choices=THROW_CHOICES, coerce=int, initial=10
    )
    private = forms.BooleanField(label=_("Private table (by invitation link only)"), required=False)
    min_reliability = forms.TypedChoiceField(
        label=_("Minimum reliability"),
        help_text=_(
            "The share of a player's last 20 games with a stake he played without timeouts."
        ),
        choices=[(0, _("anyone"))]
        + [(percent, f"{percent} %") for percent in (50, 70, 80, 90, 100)],
        coerce=int,
        initial=0,
        required=False,
        empty_value=0,
    )

    def clean(self):
        data = super().clean()
        speed = data.pop("speed", "")
        if speed:
            data["turn_seconds"], data["throw_seconds"] = SPEED_PRESETS[Speed(speed)]
        return data


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


class PracticeForm(OptionsForm):
    """A practice game against bots: how many players in all, how strong the bots are, and the
    table options."""

    field_order = ["seats", "level"]

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("auto_id", "practice_%s")  # shares the lobby page with other forms
        super().__init__(*args, **kwargs)

    seats = forms.TypedChoiceField(label=_("Players"), choices=SEAT_CHOICES, coerce=int, initial=4)
    level = forms.ChoiceField(label=_("Bots"), choices=BotLevel.choices, initial=BotLevel.AMATEUR)


class QuickPlayForm(StakeForm):
    """One click to a seat: the stake, the number of players or any, and the table options the
    player chose last (`last_options`, described by `last_label`) or any."""

    def __init__(
        self, *args, last_options: dict | None = None, last_label: str = "", **kwargs
    ) -> None:
        kwargs.setdefault("auto_id", "quick_%s")  # shares the lobby page with other forms
        super().__init__(*args, **kwargs)
        self.last_options = last_options or dict(ENGINE_OPTIONS)
        last = _("as I chose last: %(rules)s") % {"rules": last_label} if last_label else ""
        self.fields["rules"].choices = [("last", last or _("as I chose last")), ("any", _("any"))]

    seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[("", _("any")), *SEAT_CHOICES],
        coerce=int,
        empty_value=None,
        required=False,
    )
    # Any table options when not sent.
    rules = forms.ChoiceField(label=_("Rules"), choices=[], initial="last", required=False)

    def clean(self):
        data = super().clean()
        data["options"] = self.last_options if data.pop("rules", "") == "last" else None
        return data


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
