"""Account e-mails name the site ("Durak do zavala"), not the host that served the request;
sign-up nicknames are kept in NFKC form and refused when they look like a taken one; the date
of birth the sign-up form checked is kept with the account."""

from __future__ import annotations

from types import SimpleNamespace

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as request_context
from django.contrib.sites.shortcuts import get_current_site
from django.utils.translation import gettext as _

from durak_site.accounts import nicknames
from durak_site.accounts.models import User


class AccountAdapter(DefaultAccountAdapter):
    def format_email_subject(self, subject: str) -> str:
        return f"[{_('Durak do zavala')}] {subject}"

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        host = get_current_site(request_context.request).domain
        site = SimpleNamespace(name=_("Durak do zavala"), domain=host)
        super().send_mail(template_prefix, email, {**context, "current_site": site})

    def save_user(self, request, user, form, commit: bool = True):
        user.date_of_birth = form.cleaned_data.get("date_of_birth")
        return super().save_user(request, user, form, commit=commit)

    def clean_username(self, username: str, shallow: bool = False) -> str:
        username = super().clean_username(nicknames.normalize(username), shallow=shallow)
        if not shallow and User.objects.filter(nickname_key=nicknames.skeleton(username)).exists():
            raise self.validation_error("username_taken")
        return username
