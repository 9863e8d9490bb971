from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from wallet.selectors import user_balance, user_statement

ENTRIES_PER_PAGE = 25


@login_required
def wallet(request: HttpRequest) -> HttpResponse:
    page = Paginator(user_statement(user=request.user), ENTRIES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "wallet/wallet.html",
        {"balance": user_balance(user=request.user), "page": page},
    )
