"""Account e-mails name the site ("Durak do zavala"), not the host that served the request;
sign-up nicknames are kept in NFKC form and refused when they look like a taken one; the date
of birth the sign-up form checked is kept with the account; staff confirm who they are again
with their second factor, never with the password alone."""

from __future__ import annotations

from types import SimpleNamespace

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as request_context
from django.contrib.sites.shortcuts import get_current_site
from django.db.models import Q
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

    def _get_login_attempts_cache_key(self, request, **credentials) -> str:
        # allauth counts failed logins per e-mail address from any client, so that anyone
        # could lock a chosen member of staff out; for staff they count per client address
        # and e-mail address, as django-axes locks them.
        key = super()._get_login_attempts_cache_key(request, **credentials)
        login = credentials.get("email") or credentials.get("username")
        if login and User.objects.filter(Q(email__iexact=login) | Q(username=login), is_staff=True):
            return f"{self.get_client_ip(request)}:{key}"
        return key

    def get_reauthentication_methods(self, user) -> list[dict]:
        methods = super().get_reauthentication_methods(user)
        if user.is_authenticated and user.is_staff:
            second_factors = [method for method in methods if method["id"] != "reauthenticate"]
            return second_factors or methods
        return methods
