"""Staff see and download only what their permissions allow: every admin export, the wallet
statement, the operations report and the fair-play page refuse a staff member without the
view permission of their model, and serve one who has it."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.urls import reverse
from import_export.admin import ExportMixin

from tests.players import create_player
from wallet.models import Account

pytestmark = pytest.mark.django_db

CSV = "1"  # the export form's second format (XLSX first)


def _exporting_admins() -> list[admin.ModelAdmin]:
    return [
        model_admin
        for model_admin in admin.site._registry.values()
        if isinstance(model_admin, ExportMixin)
    ]


def _export_url(model_admin: admin.ModelAdmin) -> str:
    opts = model_admin.opts
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_export")


def _staff_client(client, *permissions: str):
    member = create_player(is_staff=True)
    for name in permissions:
        app_label, codename = name.split(".")
        member.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    client.force_login(member)
    return client


@pytest.fixture
def wallet_account():
    return Account.objects.get(user=create_player(nickname="owner", balance=5_000))


def _report_urls(wallet_account) -> dict[str, tuple[str, str]]:
    """Each staff page that shows or downloads money or players' data: its URL and the view
    permission it needs."""
    statement = reverse("admin:wallet_account_statement", args=[wallet_account.pk])
    operations = reverse("admin:games_operations_report")
    return {
        "statement page": (statement, "wallet.view_account"),
        "statement as PDF": (statement + "?format=pdf", "wallet.view_account"),
        "statement as XLSX": (statement + "?format=xlsx", "wallet.view_account"),
        "operations report": (operations, "games.view_game"),
        "operations report as CSV": (operations + "?format=csv", "games.view_game"),
        "operations report as XLSX": (operations + "?format=xlsx", "games.view_game"),
        "fair-play page": (reverse("admin:games_fair_play"), "games.view_game"),
    }


def test_the_walk_covers_the_ledger_its_entries_the_audit_trail_and_the_games():
    exported = {str(model_admin.opts) for model_admin in _exporting_admins()}
    assert {"wallet.ledgertransaction", "wallet.entry", "audit.staffaction", "games.game"} <= (
        exported
    )


def test_a_staff_member_without_permissions_exports_nothing(client, wallet_account):
    staff = _staff_client(client)
    for model_admin in _exporting_admins():
        url = _export_url(model_admin)
        assert staff.get(url).status_code == 403, url
        response = staff.post(url, {"format": CSV})
        assert response.status_code == 403, url
        assert "Content-Disposition" not in response, url


def test_a_staff_member_without_permissions_opens_no_report(client, wallet_account):
    staff = _staff_client(client)
    for name, (url, _permission) in _report_urls(wallet_account).items():
        response = staff.get(url)
        assert response.status_code == 403, name
        assert "Content-Disposition" not in response, name


@pytest.mark.parametrize("position", range(4))
def test_the_view_permission_of_a_model_opens_its_export_and_no_other(
    client, wallet_account, position
):
    exporting = sorted(_exporting_admins(), key=lambda model_admin: str(model_admin.opts))
    allowed = exporting[position % len(exporting)]
    opts = allowed.opts
    staff = _staff_client(client, f"{opts.app_label}.view_{opts.model_name}")

    response = staff.post(_export_url(allowed), {"format": CSV})
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    for other in exporting:
        if other is not allowed:
            assert staff.post(_export_url(other), {"format": CSV}).status_code == 403


def test_the_view_permission_opens_each_report(client, wallet_account):
    for name, (url, permission) in _report_urls(wallet_account).items():
        staff = _staff_client(client, permission)
        assert staff.get(url).status_code == 200, name
