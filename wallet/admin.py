"""Staff views of the ledger: read-only accounts and transactions, exports, credit / debit."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from durak_site.accounts import staff_access
from durak_site.staff.exports import (
    SpreadsheetExportMixin,
    SpreadsheetFormat,
    XLSXFile,
    export_filename,
    file_response,
)
from durak_site.staff.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from wallet import deposits, refunds, services, withdrawals
from wallet.admin_filters import (
    DateRangeFilter,
    EntryPlayerFilter,
    ReviewQueueFilter,
    TransactionPlayerFilter,
    titled,
)
from wallet.forms import (
    PaymentReviewForm,
    PeriodForm,
    RefundForm,
    StaffAdjustmentForm,
    WithdrawalDecisionForm,
)
from wallet.models import (
    Account,
    Entry,
    LedgerTransaction,
    Payment,
    PlayerLimit,
    Refund,
    SelfExclusion,
    Withdrawal,
)
from wallet.money import format_money, money_display, parse_major_units
from wallet.payments import api_provider
from wallet.resources import EntryResource, LedgerTransactionResource
from wallet.statement_files import statement_pdf, statement_xlsx
from wallet.statements import account_statement_for


class PDFFile(SpreadsheetFormat):
    extension = "pdf"
    content_type = "application/pdf"


STATEMENT_FILES = {"xlsx": (statement_xlsx, XLSXFile()), "pdf": (statement_pdf, PDFFile())}


def owner_name(account: Account) -> str:
    return account.user.username if account.user_id else account.kind


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "owner", "shown_balance", "currency", "tools"]
    list_filter = ["kind"]
    search_fields = ["user__username", "user__email"]
    list_select_related = ["user"]
    readonly_fields = [
        "kind",
        "user",
        "table_id",
        "currency",
        "shown_balance",
        "created_at",
        "tools",
    ]
    fields = readonly_fields
    change_list_template = "wallet/admin/account_change_list.html"

    @admin.display(description=_("owner"))
    def owner(self, account: Account) -> str:
        if account.user_id:
            return account.user.username
        if account.table_id:
            return _("table #%(id)s") % {"id": account.table_id}
        return "—"

    shown_balance = money_display("balance", _("balance"))

    @admin.display(description=_("tools"))
    def tools(self, account: Account) -> str:
        links = format_html(
            '<a href="{}">{}</a>',
            reverse("admin:wallet_account_statement", args=[account.pk]),
            _("statement"),
        )
        if account.kind == Account.Kind.USER:
            links = format_html(
                '{} · <a href="{}?player={}">{}</a>',
                links,
                reverse("admin:wallet_account_adjust"),
                account.user.username,
                _("credit / debit"),
            )
        return links

    def get_urls(self):
        return [
            path(
                "adjust/",
                self.admin_site.admin_view(self.adjust_view),
                name="wallet_account_adjust",
            ),
            path(
                "<int:account_id>/statement/",
                self.admin_site.admin_view(self.statement_view),
                name="wallet_account_statement",
            ),
            *super().get_urls(),
        ]

    def adjust_view(self, request: HttpRequest) -> HttpResponse:
        if not services.may_adjust(request.user):
            raise PermissionDenied
        form = StaffAdjustmentForm(
            request.POST or None, initial={"player": request.GET.get("player", "")}
        )
        if request.method == "POST" and form.is_valid():
            staff_access.require_second_factor_again(request)
            data = form.cleaned_data
            amount = parse_major_units(data["amount"])
            if data["direction"] == StaffAdjustmentForm.DEBIT:
                amount = -amount
            try:
                services.staff_adjust(
                    user=data["player"],
                    amount=amount,
                    reason=data["reason"],
                    staff_user=request.user,
                    idempotency_key=f"adjust:{data['request_key']}",
                    kind=data["kind"],
                )
            except services.WalletError as error:
                form.add_error(None, error.message)
            else:
                messages.success(
                    request,
                    _("%(amount)s posted to %(player)s's wallet.")
                    % {"amount": format_money(amount, signed=True), "player": data["player"]},
                )
                return redirect(
                    reverse("admin:wallet_account_changelist") + f"?q={data['player'].username}"
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Credit or debit a player's wallet"),
            "submit_label": _("Post"),
            "form": form,
        }
        return TemplateResponse(request, "admin/staff_form.html", context)

    def statement_view(self, request: HttpRequest, account_id: int) -> HttpResponse:
        """A period form, and the statement of that period as XLSX or PDF."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        account = get_object_or_404(Account.objects.select_related("user"), pk=account_id)
        today = timezone.localdate()
        first = account.created_at and timezone.localtime(account.created_at).date()
        form = PeriodForm(request.GET or {"since": min(first or today, today), "until": today})
        file_format = request.GET.get("format")
        if form.is_valid() and file_format in STATEMENT_FILES:
            statement = account_statement_for(
                account=account, since=form.cleaned_data["since"], until=form.cleaned_data["until"]
            )
            write, export_format = STATEMENT_FILES[file_format]
            filename = export_filename(
                "statement",
                [owner_name(account), statement.since.isoformat(), statement.until.isoformat()],
                file_format,
            )
            return file_response(write(statement), export_format, filename)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Statement of a wallet"),
            "subtitle": str(account),
            "account": account,
            "form": form,
            "query": urlencode({key: form[key].value() for key in ("since", "until")}),
        }
        return TemplateResponse(request, "wallet/admin/statement.html", context)


class EntryInline(ReadOnlyInline):
    model = Entry
    fields = ["account", "shown_amount", "shown_balance_after"]
    readonly_fields = fields
    shown_amount = money_display("amount", _("amount"))
    shown_balance_after = money_display("balance_after", _("balance after"))


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(SpreadsheetExportMixin, ReadOnlyAdmin):
    resource_classes = [LedgerTransactionResource]
    list_display = ["id", "created_at", "kind", "memo", "initiated_by", "table_id", "game_id"]
    list_filter = [("created_at", DateRangeFilter), "kind", TransactionPlayerFilter]
    search_fields = ["idempotency_key", "memo"]
    list_select_related = ["initiated_by"]
    inlines = [EntryInline]
    fields = [
        "kind",
        "created_at",
        "memo",
        "initiated_by",
        "table_id",
        "game_id",
        "idempotency_key",
        "fingerprint",
    ]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("entries__account__user")


@admin.register(Entry)
class EntryAdmin(SpreadsheetExportMixin, ReadOnlyAdmin):
    resource_classes = [EntryResource]
    list_display = ["id", "created_at", "kind", "account", "shown_amount", "shown_balance_after"]
    list_filter = [
        ("transaction__created_at", DateRangeFilter),
        ("transaction__kind", titled(admin.ChoicesFieldListFilter, _("transaction kind"))),
        EntryPlayerFilter,
        ("account__kind", titled(admin.ChoicesFieldListFilter, _("account kind"))),
    ]
    list_select_related = ["transaction", "account__user"]
    fields = ["transaction", "account", "shown_amount", "shown_balance_after"]
    readonly_fields = fields
    shown_amount = money_display("amount", _("amount"))
    shown_balance_after = money_display("balance_after", _("balance after"))

    class Media:
        css = {"all": ["css/admin-lists.css"]}

    def changelist_view(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        # Six columns and the filters need the width the navigation would take at 1280 px;
        # the breadcrumbs still lead back.
        return super().changelist_view(
            request, {"is_nav_sidebar_enabled": False, **(extra_context or {})}
        )

    @admin.display(description=_("created"), ordering="transaction__created_at")
    def created_at(self, entry: Entry) -> str:
        # Short, so that the account and the money keep their room at 1280 px.
        created = timezone.localtime(entry.transaction.created_at)
        return date_format(created, "SHORT_DATETIME_FORMAT")

    @admin.display(description=_("kind"))
    def kind(self, entry: Entry) -> str:
        return entry.transaction.get_kind_display()


class RefundInline(ReadOnlyInline):
    model = Refund
    fk_name = "payment"
    fields = [
        "created_at",
        "shown_amount",
        "status",
        "reason",
        "requested_by",
        "provider_refund_id",
    ]
    readonly_fields = fields
    shown_amount = money_display("amount", _("amount"))


@admin.register(Payment)
class PaymentAdmin(ReadOnlyAdmin):
    """Deposits through providers with their states; they change only by the providers' word.

    Staff with the payment permission refund credited payments, and close the review of those
    the queue holds (filter *for staff review*)."""

    list_display = [
        "id",
        "created_at",
        "user",
        "provider",
        "shown_amount",
        "status",
        "review_state",
        "provider_payment_id",
        "failure_reason",
        "tools",
    ]
    list_filter = [
        ReviewQueueFilter,
        "status",
        "provider",
        ("created_at", DateRangeFilter),
    ]
    search_fields = ["user__username", "user__email", "provider_payment_id", "reference"]
    list_select_related = ["user"]
    fields = [
        "reference",
        "user",
        "provider",
        "provider_payment_id",
        "payment_method",
        "card_last4",
        "shown_amount",
        "currency",
        "status",
        "failure_reason",
        "review",
        "reviewed_by",
        "reviewed_at",
        "created_at",
        "updated_at",
        "expires_at",
        "transaction",
        "tools",
    ]
    readonly_fields = fields
    inlines = [RefundInline]

    shown_amount = money_display("amount", _("amount"))

    @admin.display(description=_("for staff review"))
    def review_state(self, payment: Payment) -> str:
        if not payment.review:
            return "—"
        if payment.reviewed_at is None:
            return payment.get_review_display()
        return _("%(review)s (closed)") % {"review": payment.get_review_display()}

    @admin.display(description=_("tools"))
    def tools(self, payment: Payment) -> str:
        links = []
        if payment.status == Payment.Status.SUCCEEDED and api_provider(payment.provider):
            links.append(
                format_html(
                    '<a href="{}">{}</a>',
                    reverse("admin:wallet_payment_refund", args=[payment.pk]),
                    _("refund"),
                )
            )
        if payment.review and payment.reviewed_at is None:
            links.append(
                format_html(
                    '<a href="{}">{}</a>',
                    reverse("admin:wallet_payment_review", args=[payment.pk]),
                    _("close the review"),
                )
            )
        return format_html_join(" · ", "{}", ((link,) for link in links)) or "—"

    def get_urls(self):
        return [
            path(
                "<int:payment_id>/refund/",
                self.admin_site.admin_view(self.refund_view),
                name="wallet_payment_refund",
            ),
            path(
                "<int:payment_id>/review/",
                self.admin_site.admin_view(self.review_view),
                name="wallet_payment_review",
            ),
            *super().get_urls(),
        ]

    def refund_view(self, request: HttpRequest, payment_id: int) -> HttpResponse:
        if not request.user.has_perm(deposits.PAYMENT_PERMISSION):
            raise PermissionDenied
        payment = get_object_or_404(Payment.objects.select_related("user"), pk=payment_id)
        form = RefundForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                refund = refunds.refund_start(
                    payment_id=payment.pk,
                    amount=parse_major_units(form.cleaned_data["amount"]),
                    reason=form.cleaned_data["reason"],
                    staff_user=request.user,
                    reference=form.cleaned_data["request_key"],
                )
            except services.WalletError as error:
                form.add_error(None, error.message)
            else:
                messages.success(
                    request,
                    _("Refund of %(amount)s: %(status)s.")
                    % {
                        "amount": format_money(refund.amount),
                        "status": refund.get_status_display(),
                    },
                )
                return redirect(reverse("admin:wallet_payment_change", args=[payment.pk]))
        return self._payment_form(
            request,
            form,
            title=_("Refund payment #%(id)s of %(player)s (%(amount)s, %(left)s refundable)")
            % {
                "id": payment.pk,
                "player": payment.user,
                "amount": format_money(payment.amount),
                "left": format_money(refunds.refundable(payment)),
            },
            submit_label=_("Refund"),
        )

    def review_view(self, request: HttpRequest, payment_id: int) -> HttpResponse:
        if not request.user.has_perm(deposits.PAYMENT_PERMISSION):
            raise PermissionDenied
        payment = get_object_or_404(Payment.objects.select_related("user"), pk=payment_id)
        form = PaymentReviewForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                deposits.payment_review_close(
                    payment_id=payment.pk, staff_user=request.user, note=form.cleaned_data["note"]
                )
            except services.WalletError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, _("Review closed."))
                return redirect(reverse("admin:wallet_payment_changelist") + "?review=open")
        return self._payment_form(
            request,
            form,
            title=_("Payment #%(id)s of %(player)s: %(review)s")
            % {"id": payment.pk, "player": payment.user, "review": payment.get_review_display()},
            submit_label=_("Close the review"),
        )

    def _payment_form(self, request, form, *, title, submit_label) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "submit_label": submit_label,
            "form": form,
        }
        return TemplateResponse(request, "admin/staff_form.html", context)


@admin.register(Withdrawal)
class WithdrawalAdmin(ReadOnlyAdmin):
    """The queue of withdrawals; staff with the permission decide each on its own page."""

    list_display = [
        "id",
        "decide",
        "created_at",
        "user",
        "shown_amount",
        "status",
        "identity",
        "first_approved_by",
        "decided_by",
    ]
    list_filter = ["status", "user__identity_status", ("created_at", DateRangeFilter)]
    search_fields = ["user__username", "user__email", "payout_reference"]
    list_select_related = ["user", "first_approved_by", "decided_by"]
    fields = [
        "user",
        "shown_amount",
        "currency",
        "payout_details",
        "status",
        "created_at",
        "first_approved_by",
        "first_approved_at",
        "decided_by",
        "decided_at",
        "payout_reference",
        "reason",
        "hold_transaction",
        "settle_transaction",
        "decide",
    ]
    readonly_fields = fields

    def has_view_permission(self, request, obj=None) -> bool:
        # Whoever may decide withdrawals sees the queue.
        return request.user.has_perm(withdrawals.PERMISSION) or super().has_view_permission(
            request, obj
        )

    shown_amount = money_display("amount", _("amount"))

    @admin.display(description=_("identity check"))
    def identity(self, withdrawal: Withdrawal) -> str:
        return withdrawal.user.get_identity_status_display()

    @admin.display(description=_("decision"))
    def decide(self, withdrawal: Withdrawal) -> str:
        if withdrawal.status != Withdrawal.Status.PENDING:
            return "—"
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:wallet_withdrawal_decide", args=[withdrawal.pk]),
            _("approve or reject"),
        )

    def get_urls(self):
        return [
            path(
                "<int:withdrawal_id>/decide/",
                self.admin_site.admin_view(self.decide_view),
                name="wallet_withdrawal_decide",
            ),
            *super().get_urls(),
        ]

    def decide_view(self, request: HttpRequest, withdrawal_id: int) -> HttpResponse:
        if not request.user.has_perm(withdrawals.PERMISSION):
            raise PermissionDenied
        withdrawal = get_object_or_404(Withdrawal.objects.select_related("user"), pk=withdrawal_id)
        form = WithdrawalDecisionForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            if (
                data["decision"] == WithdrawalDecisionForm.APPROVE
                and withdrawal.amount > settings.WITHDRAWAL_FOUR_EYES_ABOVE
            ):
                staff_access.require_second_factor_again(request)
            try:
                if data["decision"] == WithdrawalDecisionForm.APPROVE:
                    decided = withdrawals.withdrawal_approve(
                        withdrawal_id=withdrawal.pk,
                        staff_user=request.user,
                        payout_reference=data["payout_reference"],
                    )
                else:
                    decided = withdrawals.withdrawal_reject(
                        withdrawal_id=withdrawal.pk,
                        staff_user=request.user,
                        reason=data["reason"],
                    )
            except services.WalletError as error:
                form.add_error(None, error.message)
            else:
                if decided.status == Withdrawal.Status.PENDING:
                    message = _("First approval recorded; a second staff member must approve.")
                else:
                    message = _("Withdrawal #%(id)s: %(status)s.") % {
                        "id": decided.pk,
                        "status": decided.get_status_display(),
                    }
                messages.success(request, message)
                return redirect(
                    reverse("admin:wallet_withdrawal_changelist") + "?status__exact=pending"
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Withdrawal #%(id)s") % {"id": withdrawal.pk},
            "withdrawal": withdrawal,
            "needs_two": withdrawal.amount > settings.WITHDRAWAL_FOUR_EYES_ABOVE,
            "form": form,
        }
        return TemplateResponse(request, "wallet/admin/withdrawal_decide.html", context)


@admin.register(PlayerLimit)
class PlayerLimitAdmin(ReadOnlyAdmin):
    """Limits players set for themselves; only the player changes them."""

    list_display = ["user", "kind", "value", "pending_value", "pending_from", "updated_at"]
    list_filter = ["kind"]
    search_fields = ["user__username", "user__email"]
    list_select_related = ["user"]
    fields = list_display
    readonly_fields = fields


@admin.register(SelfExclusion)
class SelfExclusionAdmin(ReadOnlyAdmin):
    """Breaks from play; nobody can shorten one, staff included."""

    list_display = ["user", "started_at", "ends_at"]
    search_fields = ["user__username", "user__email"]
    list_select_related = ["user"]
    fields = list_display
    readonly_fields = fields
