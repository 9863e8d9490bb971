from allauth.account.forms import SignupForm as AllauthSignupForm
from django.utils.translation import gettext_lazy as _


class SignupForm(AllauthSignupForm):
    """Sign-up with e-mail, password and the nickname other players will see."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("Nickname")
        self.fields["username"].help_text = _("Shown to other players at the table.")
