from __future__ import annotations

from decimal import Decimal
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from durak_site.web.client_source import client_of
from durak_site.web.security import policy_for
from wallet import deposits, limits, play_money, withdrawals
from wallet.forms import BreakForm, DepositForm, LimitsForm, WithdrawalForm
from wallet.models import LedgerTransaction, Payment
from wallet.money import MINOR_UNITS_PER_MAJOR, format_money, parse_major_units
from wallet.payments import enabled_providers
from wallet.payments.test_provider import TestProvider
from wallet.selectors import (
    recent_payments,
    recent_withdrawals,
    user_balance,
    user_statement,
)
from wallet.services import WalletError
from wallet.statements import cashier_description

ENTRIES_PER_PAGE = 25
# Ledger kinds whose memo is written for the player (a staff reason, a rejection reason).
MEMO_SHOWN_TO_PLAYER = (
    LedgerTransaction.Kind.ADJUSTMENT,
    LedgerTransaction.Kind.BONUS,
    LedgerTransaction.Kind.WITHDRAWAL_RETURN,
)


def cashier_page(view):
    """A page of the cashier (deposits, withdrawals, providers' calls): none on a play-money
    site."""

    @wraps(view)
    def page(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if settings.PLAY_MONEY:
            raise Http404
        return view(request, *args, **kwargs)

    return page


@login_required
def wallet(request: HttpRequest) -> HttpResponse:
    page = Paginator(user_statement(user=request.user), ENTRIES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    balance = user_balance(user=request.user)
    for entry in page.object_list:
        entry.cashier = cashier_description(entry.transaction)
    return render(
        request,
        "wallet/wallet.html",
        {
            "balance": balance,
            "top_up": play_money.top_up_offer(user=request.user, balance=balance),
            "page": page,
            "payments": recent_payments(user=request.user),
            "withdrawals": recent_withdrawals(user=request.user),
            "memo_kinds": MEMO_SHOWN_TO_PLAYER,
        },
    )


@login_required
@require_POST
def chips_top_up(request: HttpRequest) -> HttpResponse:
    try:
        top_up = play_money.chips_top_up(user=request.user)
    except WalletError as error:
        messages.error(request, error.message)
    else:
        amount = top_up.entries.get(account__user=request.user).amount
        shown = format_money(amount)
        messages.success(
            request, _("%(amount)s are in your wallet. Good game!") % {"amount": shown}
        )
    return redirect("wallet")


@cashier_page
@login_required
def deposit(request: HttpRequest) -> HttpResponse:
    providers = enabled_providers()
    form = DepositForm(request.POST or None, providers=providers)
    if request.method == "POST" and form.is_valid():
        try:
            checkout = deposits.deposit_start(
                user=request.user,
                amount=parse_major_units(form.cleaned_data["amount"]),
                provider_code=form.cleaned_data["provider"],
                site_url=f"{request.scheme}://{request.get_host()}",
            )
        except WalletError as error:
            form.add_error(None, error.message)
        else:
            return redirect(checkout.url)
    response = render(
        request,
        "wallet/deposit.html",
        {
            "form": form,
            "providers": providers,
            "balance": user_balance(user=request.user),
            "deposit_min": settings.DEPOSIT_MIN,
            "deposit_max": settings.DEPOSIT_MAX,
        },
    )
    # The form's answer is a redirect to the provider's checkout, which the policy must allow.
    response.headers["Content-Security-Policy"] = policy_for(
        request, form_targets=filter(None, (p.checkout_origin() for p in providers.values()))
    )
    return response


@cashier_page
@login_required
def deposit_status(request: HttpRequest, reference) -> HttpResponse:
    payment = get_object_or_404(Payment, reference=reference, user=request.user)
    return render(
        request,
        "wallet/deposit_status.html",
        {"payment": payment, "balance": user_balance(user=request.user)},
    )


@cashier_page
@csrf_exempt  # called by the provider's servers; authenticated by the body's signature
@require_POST
def payment_notify(request: HttpRequest, provider_code: str) -> HttpResponse:
    return deposits.notification_receive(
        provider_code=provider_code,
        body=request.body,
        headers=request.headers,
        sender=client_of(request).address,
    )


@cashier_page
@login_required
def payment_test_page(request: HttpRequest, reference) -> HttpResponse:
    """The test provider's checkout page; it exists only in test mode."""
    if not TestProvider.configured():
        raise Http404
    payment = get_object_or_404(
        Payment, reference=reference, user=request.user, provider=TestProvider.code
    )
    if request.method == "POST" and request.POST.get("outcome") in ("pay", "decline"):
        body, headers = TestProvider().notification(
            payment, succeeded=request.POST["outcome"] == "pay"
        )
        deposits.notification_receive(provider_code=TestProvider.code, body=body, headers=headers)
        return redirect("deposit_status", reference=payment.reference)
    return render(request, "wallet/payment_test_page.html", {"payment": payment})


@cashier_page
@login_required
def withdraw(request: HttpRequest) -> HttpResponse:
    form = WithdrawalForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            withdrawal = withdrawals.withdrawal_request(
                user=request.user,
                amount=parse_major_units(data["amount"]),
                payout_details=data["payout_details"],
                request_key=str(data["request_key"]),
            )
        except WalletError as error:
            form.add_error(None, error.message)
        else:
            messages.success(
                request,
                _(
                    "Your request to withdraw %(amount)s is received. The amount is set aside "
                    "from your balance now; staff check the request and pay it out to the "
                    "details you gave. Its status is in the list below, and until it is paid "
                    "you can cancel it."
                )
                % {"amount": format_money(withdrawal.amount)},
            )
            return redirect("withdraw")
    return render(
        request,
        "wallet/withdraw.html",
        {
            "form": form,
            "balance": user_balance(user=request.user),
            "withdrawals": recent_withdrawals(user=request.user),
            "withdrawal_min": settings.WITHDRAWAL_MIN,
            "waits_for_identity": withdrawals.payout_waits_for_identity(request.user),
        },
    )


@cashier_page
@login_required
@require_POST
def withdrawal_cancel(request: HttpRequest, withdrawal_id: int) -> HttpResponse:
    try:
        withdrawals.withdrawal_cancel(withdrawal_id=withdrawal_id, user=request.user)
    except WalletError as error:
        messages.error(request, error.message)
    return redirect("withdraw")


@login_required
def limits_page(request: HttpRequest) -> HttpResponse:
    """The player's own limits and breaks from play."""
    states = limits.limits_of(user=request.user)
    shown = {
        kind: state.value
        if state.value is None or kind == "play_reminder"
        else Decimal(state.value) / MINOR_UNITS_PER_MAJOR
        for kind, state in states.items()
    }
    limits_form = LimitsForm(request.POST if "save_limits" in request.POST else None, initial=shown)
    break_form = BreakForm(request.POST if "take_break" in request.POST else None)
    if request.method == "POST":
        try:
            if limits_form.is_bound and limits_form.is_valid():
                for kind, value in limits_form.limit_values().items():
                    state = states[kind]
                    unchanged = value == state.value or (
                        state.pending_from is not None and value == state.pending_value
                    )
                    if not unchanged:
                        limits.limit_set(user=request.user, kind=kind, value=value)
                messages.success(request, _("Your limits are saved."))
                return redirect("limits")
            if break_form.is_bound and break_form.is_valid():
                limits.break_start(user=request.user, length=break_form.cleaned_data["length"])
                messages.success(request, _("Your break from play has started."))
                return redirect("limits")
        except WalletError as error:
            messages.error(request, error.message)
            return redirect("limits")
    return render(
        request,
        "wallet/limits.html",
        {
            "limits_form": limits_form,
            "break_form": break_form,
            "states": states,
            "current_break": limits.active_break(user=request.user),
        },
    )
