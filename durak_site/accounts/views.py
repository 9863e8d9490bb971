from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from durak_site.accounts.closure import AccountClosureRefused, account_close
from durak_site.accounts.forms import CloseAccountForm


@login_required
def close_account(request: HttpRequest) -> HttpResponse:
    form = CloseAccountForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            account_close(user=request.user)
        except AccountClosureRefused as refusal:
            form.add_error(None, refusal.message)
        else:
            logout(request)
            messages.success(request, _("Your account is closed. Thank you for playing."))
            return redirect("home")
    return render(request, "accounts/close.html", {"form": form})
