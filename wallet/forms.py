from __future__ import annotations

import uuid
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from wallet.models import LedgerTransaction
from wallet.money import money_label, parse_major_units


class StaffAdjustmentForm(forms.Form):
    """A staff credit or debit of a player's wallet; the reason is mandatory."""

    CREDIT = "credit"
    DEBIT = "debit"

    player = forms.CharField(label=_("Player (nickname or e-mail)"), max_length=254)
    direction = forms.ChoiceField(
        label=_("Operation"),
        choices=[(CREDIT, _("Credit the wallet")), (DEBIT, _("Debit the wallet"))],
        widget=forms.RadioSelect,
    )
    amount = forms.DecimalField(
        label=money_label(_("Amount")), min_value=Decimal("0.01"), max_digits=14, decimal_places=2
    )
    # Never a deposit: money the player brought is kept apart from money staff gave or took.
    kind = forms.ChoiceField(
        label=_("Shown as"),
        choices=[
            (LedgerTransaction.Kind.ADJUSTMENT, _("Adjustment (a correction)")),
            (LedgerTransaction.Kind.BONUS, _("Bonus (credits only)")),
        ],
        initial=LedgerTransaction.Kind.ADJUSTMENT,
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 3})
    )
    # A fresh key per rendered form: a double submit posts the same adjustment only once.
    request_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)

    def clean_player(self):
        value = self.cleaned_data["player"].strip()
        user = (
            get_user_model()
            .objects.filter(Q(username__iexact=value) | Q(email__iexact=value))
            .first()
        )
        if user is None:
            raise forms.ValidationError(_("No player with this nickname or e-mail."))
        return user

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("A reason is required."))
        return reason


class DepositForm(forms.Form):
    amount = forms.DecimalField(
        label=money_label(_("Amount")), min_value=Decimal("0.01"), max_digits=14, decimal_places=2
    )
    provider = forms.ChoiceField(label=_("How to pay"), widget=forms.RadioSelect)

    def __init__(self, *args, providers: dict, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["provider"].choices = [
            (code, provider.label) for code, provider in providers.items()
        ]
        if len(providers) == 1:
            self.fields["provider"].initial = next(iter(providers))
            self.fields["provider"].widget = forms.HiddenInput()


class WithdrawalForm(forms.Form):
    amount = forms.DecimalField(
        label=money_label(_("Amount")), min_value=Decimal("0.01"), max_digits=14, decimal_places=2
    )
    payout_details = forms.CharField(
        label=_("Where to pay (card or account number, bank)"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    # A fresh key per rendered form: a double submit asks only once.
    request_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)


class WithdrawalDecisionForm(forms.Form):
    """Staff approve (with the payout reference) or reject (with a reason) a withdrawal."""

    APPROVE = "approve"
    REJECT = "reject"

    decision = forms.ChoiceField(choices=[(APPROVE, _("Approve")), (REJECT, _("Reject"))])
    payout_reference = forms.CharField(label=_("Payout reference"), max_length=200, required=False)
    reason = forms.CharField(
        label=_("Reason for rejecting (the player sees it)"),
        max_length=500,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class RefundForm(forms.Form):
    """Staff refund some or all of a credited payment through its provider."""

    amount = forms.DecimalField(
        label=money_label(_("Amount")), min_value=Decimal("0.01"), max_digits=14, decimal_places=2
    )
    reason = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 3})
    )
    # A fresh key per rendered form: a double submit refunds only once.
    request_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)


class PaymentReviewForm(forms.Form):
    """What staff did about a payment in the review queue."""

    note = forms.CharField(
        label=_("What was done"), max_length=500, widget=forms.Textarea(attrs={"rows": 3})
    )


class LimitsForm(forms.Form):
    """The player's own limits; an empty field means no limit."""

    MONEY_FIELDS = {
        "deposit_day": _("Deposits per day"),
        "deposit_week": _("Deposits per week"),
        "deposit_month": _("Deposits per month"),
        "loss_day": _("Losses per day"),
        "loss_week": _("Losses per week"),
        "loss_month": _("Losses per month"),
    }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, label in self.MONEY_FIELDS.items():
            self.fields[name] = forms.DecimalField(
                label=money_label(label),
                min_value=Decimal("0.01"),
                max_digits=14,
                decimal_places=2,
                required=False,
            )
        self.fields["play_reminder"] = forms.IntegerField(
            label=_("Remind me after this many minutes of play"),
            min_value=1,
            max_value=24 * 60,
            required=False,
        )

    def limit_values(self) -> dict[str, int | None]:
        """Each limit in the unit it is kept in (minor units, minutes); None for no limit."""
        values = {}
        for name, value in self.cleaned_data.items():
            if value is None or name == "play_reminder":
                values[name] = value
            else:
                values[name] = parse_major_units(value)
        return values


class BreakForm(forms.Form):
    length = forms.ChoiceField(
        label=_("Take a break from play"),
        choices=[
            ("24h", _("24 hours")),
            ("7d", _("7 days")),
            ("30d", _("30 days")),
            ("forever", _("for good")),
        ],
        widget=forms.RadioSelect,
    )
    confirm = forms.BooleanField(
        label=_("I understand that a break cannot be shortened or cancelled."), required=True
    )


# The browser's date picker reads and writes ISO dates, whatever the page's language.
DATE_PICKER = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class PeriodForm(forms.Form):
    """A period of local dates, both days included."""

    since = forms.DateField(label=_("From"), widget=DATE_PICKER)
    until = forms.DateField(label=_("To"), widget=DATE_PICKER)

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("The period ends before it starts."))
        return data
