from allauth.mfa.models import Authenticator
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from durak_site.accounts.closure import AccountClosureRefused, account_close
from durak_site.accounts.forms import StaffCloseAccountForm
from durak_site.accounts.models import SecondFactor, User
from durak_site.admin_readonly import ReadOnlyAdmin


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = (
        "username",
        "email",
        "is_active",
        "is_staff",
        "date_joined",
        "last_login",
        "closed_at",
    )
    list_filter = (*UserAdmin.list_filter, ("closed_at", admin.EmptyFieldListFilter))
    search_fields = ("username", "email")
    ordering = ("-date_joined",)
    readonly_fields = ("closed_at",)
    fieldsets = (*UserAdmin.fieldsets, (None, {"fields": ("closed_at",)}))

    def get_urls(self):
        return [
            path(
                "<int:user_id>/close/",
                self.admin_site.admin_view(self.close_view),
                name="accounts_user_close",
            ),
            *super().get_urls(),
        ]

    def render_change_form(self, request, context, *args, **kwargs):
        context["can_close_account"] = request.user.has_perm("accounts.close_account")
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
