from allauth.mfa.models import Authenticator
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from durak_site.accounts import identity
from durak_site.accounts.closure import AccountClosureRefused, account_close
from durak_site.accounts.forms import IdentityDecisionForm, StaffCloseAccountForm
from durak_site.accounts.models import IdentityDocument, IdentityStatus, SecondFactor, User
from durak_site.staff.readonly_admin import ReadOnlyAdmin


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = (
        "username",
        "email",
        "is_active",
        "is_staff",
        "date_joined",
        "last_login",
        "identity_status",
        "closed_at",
    )
    list_filter = (
        *UserAdmin.list_filter,
        "identity_status",
        ("closed_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("username", "email")
    ordering = ("-date_joined",)
    readonly_fields = ("closed_at", "date_of_birth", "identity_status", "identity_decided_at")
    fieldsets = (
        *UserAdmin.fieldsets,
        (
            gettext_lazy("Age and identity"),
            {"fields": ("date_of_birth", "identity_status", "identity_decided_at")},
        ),
        (None, {"fields": ("closed_at",)}),
    )

    def get_urls(self):
        return [
            path(
                "<int:user_id>/identity/",
                self.admin_site.admin_view(self.identity_view),
                name="accounts_user_identity",
            ),
            path(
                "<int:user_id>/close/",
                self.admin_site.admin_view(self.close_view),
                name="accounts_user_close",
            ),
            *super().get_urls(),
        ]

    def render_change_form(self, request, context, *args, **kwargs):
        context["can_close_account"] = request.user.has_perm("accounts.close_account")
        context["can_review_identity"] = request.user.has_perm(identity.REVIEW_PERMISSION)
        return super().render_change_form(request, context, *args, **kwargs)

    def close_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        if not request.user.has_perm("accounts.close_account"):
            raise PermissionDenied
        player = get_object_or_404(User, pk=user_id)
        form = StaffCloseAccountForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                account_close(user=player, staff=request.user, reason=form.cleaned_data["reason"])
            except AccountClosureRefused as refusal:
                form.add_error(None, refusal.message)
            else:
                messages.success(request, _("The account is closed and anonymised."))
                return redirect(reverse("admin:accounts_user_change", args=[player.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Close the account of %(player)s") % {"player": player.username},
            "intro": _(
                "The e-mail address, nickname, password and sessions are deleted; the ledger, "
                "games and event logs stay, under «удалённый игрок №%(number)s». The wallet must "
                "be empty and the player seated nowhere."
            )
            % {"number": player.pk},
            "submit_label": _("Close the account"),
            "form": form,
        }
        return TemplateResponse(request, "admin/staff_form.html", context)

    def identity_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """The player's documents, each opened through the permission-checked file view, and
        the decision on them."""
        if not request.user.has_perm(identity.REVIEW_PERMISSION):
            raise PermissionDenied
        player = get_object_or_404(User, pk=user_id)
        form = IdentityDecisionForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                identity.identity_decide(
                    user=player,
                    staff=request.user,
                    verified=form.cleaned_data["decision"],
                    reason=form.cleaned_data["reason"],
                )
            except identity.IdentityError as refusal:
                form.add_error(None, refusal.message)
            else:
                messages.success(request, _("The decision is recorded."))
                return redirect(reverse("admin:accounts_user_change", args=[player.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Identity of %(player)s") % {"player": player.username},
            "player": player,
            "documents": player.identity_documents.all(),
            "form": form,
            "submit_label": _("Record the decision"),
        }
        return TemplateResponse(request, "admin/accounts/identity_review.html", context)


@admin.register(IdentityDocument)
class IdentityDocumentAdmin(ReadOnlyAdmin):
    """Documents waiting for (or past) review; the files open only through ``file_view``."""

    list_display = ("id", "player", "uploaded_at", "content_type", "size", "status", "open")
    # The file itself shows only as the link to the permission-checked view: it has no address.
    fields = ("player", "uploaded_at", "content_type", "size", "status", "open")
    readonly_fields = fields
    list_filter = ("user__identity_status", "uploaded_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)

    def get_urls(self):
        return [
            path(
                "<int:document_id>/file/",
                self.admin_site.admin_view(self.file_view),
                name="accounts_identitydocument_file",
            ),
            *super().get_urls(),
        ]

    @admin.display(description=gettext_lazy("player"), ordering="user__username")
    def player(self, document: IdentityDocument) -> str:
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:accounts_user_identity", args=[document.user_id]),
            document.user,
        )

    @admin.display(description=gettext_lazy("identity check"))
    def status(self, document: IdentityDocument) -> str:
        return IdentityStatus(document.user.identity_status).label

    @admin.display(description=gettext_lazy("file"))
    def open(self, document: IdentityDocument) -> str:
        url = reverse("admin:accounts_identitydocument_file", args=[document.pk])
        return format_html(
            '<a href="{}" target="_blank" rel="noopener">{}</a>', url, _("open the file")
        )

    def file_view(self, request: HttpRequest, document_id: int) -> FileResponse:
        if not request.user.has_perm("accounts.view_identitydocument"):
            raise PermissionDenied
        document = get_object_or_404(IdentityDocument, pk=document_id)
        response = FileResponse(document.file.open("rb"), content_type=document.content_type)
        response["Cache-Control"] = "private, no-store"
        # Shown by the browser, never run: no script of the site's origin can come from it.
        response["Content-Security-Policy"] = "sandbox; default-src 'none'; img-src 'self'"
        return response


# allauth's own page of authenticators gives way to this read-only one: a second factor is
# added or removed only by its owner, on the pages that ask him for it (allauth.mfa).
admin.site.unregister(Authenticator)


@admin.register(SecondFactor)
class SecondFactorAdmin(ReadOnlyAdmin):
    list_display = ("owner", "kind", "added", "last_used")
    search_fields = ("user__username", "user__email")
    list_select_related = ("user",)
    fields = list_display
    readonly_fields = fields

    @admin.display(description=gettext_lazy("player"), ordering="user__username")
    def owner(self, factor: SecondFactor) -> str:
        return str(factor.user)

    @admin.display(description=gettext_lazy("kind"), ordering="type")
    def kind(self, factor: SecondFactor) -> str:
        return factor.get_type_display()

    @admin.display(description=gettext_lazy("added"), ordering="created_at")
    def added(self, factor: SecondFactor):
        return factor.created_at

    @admin.display(description=gettext_lazy("last used"), ordering="last_used_at")
    def last_used(self, factor: SecondFactor):
        return factor.last_used_at
