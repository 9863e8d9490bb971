from datetime import date

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.utils.translation import gettext_lazy as _

from durak_site.accounts import identity


class SignupForm(AllauthSignupForm):
    """Sign-up with e-mail, password, the nickname other players will see and the date of
    birth: nobody under 18 may sign up."""

    date_of_birth = forms.DateField(
        label=_("Date of birth"),
        help_text=_("You must be 18 or older to play."),
        widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date", "autocomplete": "bday"}),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("Nickname")
        self.fields["username"].help_text = _("Shown to other players at the table.")
        self.order_fields(["email", "username", "date_of_birth"])

    def clean_date_of_birth(self) -> date:
        born = self.cleaned_data["date_of_birth"]
        identity.check_adult(born)
        return born


class CloseAccountForm(forms.Form):
    """The player confirms with his password that he wants his account closed."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user, *args, **kwargs) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("The password is not right."))
        return password


class StaffCloseAccountForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 3})
    )


class IdentityDocumentForm(forms.Form):
    file = forms.FileField(
        label=_("Photo or scan of the document"),
        help_text=_("JPEG, PNG or PDF, up to 10 MB: the page of your passport with your photo."),
        widget=forms.ClearableFileInput(attrs={"accept": "image/jpeg,image/png,application/pdf"}),
    )


class IdentityDecisionForm(forms.Form):
    decision = forms.TypedChoiceField(
        label=_("Decision"),
        choices=[("1", _("Verify the identity")), ("0", _("Refuse the identity"))],
        coerce=lambda value: value == "1",
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 3})
    )
