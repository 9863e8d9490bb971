from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from durak_site.accounts import identity
from durak_site.accounts.closure import AccountClosureRefused, account_close
from durak_site.accounts.forms import CloseAccountForm, IdentityDocumentForm
from durak_site.accounts.models import IdentityStatus


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


@login_required
def identity_page(request: HttpRequest) -> HttpResponse:
    """The player's identity check: where it stands, his documents, and the upload."""
    form = IdentityDocumentForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            identity.document_upload(user=request.user, file=form.cleaned_data["file"])
        except identity.IdentityError as refusal:
            form.add_error("file", refusal.message)
        else:
            messages.success(request, _("The document is uploaded. Staff will review it."))
            return redirect("identity")
    return render(
        request,
        "accounts/identity.html",
        {
            "form": form,
            "status": IdentityStatus(request.user.identity_status),
            "statuses": IdentityStatus,
            "documents": request.user.identity_documents.all(),
        },
    )
