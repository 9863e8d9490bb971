"""Staff tools: read-only ledger, filtered exports, credit / debit with a reason."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from durak_site.audit.models import StaffAction
from wallet import selectors, services
from wallet.models import Account, LedgerTransaction

pytestmark = pytest.mark.django_db

TRANSACTIONS_EXPORT = reverse("admin:wallet_ledgertransaction_export")
ADJUST = reverse("admin:wallet_account_adjust")


def test_exports_and_ledger_pages_need_staff(client, make_user, ledger):
    client.force_login(make_user())
    response = client.post(TRANSACTIONS_EXPORT, {"format": "0", "resource": "0"})
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_ledger_is_read_only_in_the_admin(staff_client, ledger):
    ledger_transaction = LedgerTransaction.objects.first()
    assert staff_client.get(reverse("admin:wallet_ledgertransaction_add")).status_code == 403
    change_url = reverse("admin:wallet_ledgertransaction_change", args=[ledger_transaction.pk])
    page = staff_client.get(change_url)
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert staff_client.post(change_url, {"memo": "rewritten"}).status_code == 403
    delete_url = reverse("admin:wallet_ledgertransaction_delete", args=[ledger_transaction.pk])
    assert staff_client.post(delete_url, {"post": "yes"}).status_code == 403
    ledger_transaction.refresh_from_db()
    assert ledger_transaction.memo == ""


def test_account_list_is_searchable_by_player(staff_client, ledger):
    page = staff_client.get(reverse("admin:wallet_account_changelist") + "?q=anna")
    assert page.status_code == 200
    assert list(page.context["cl"].result_list.values_list("user__username", flat=True)) == ["anna"]


def _adjust(client, **fields):
    page = client.get(ADJUST)
    data = {
        "player": "anna",
        "direction": "credit",
        "amount": "12.50",
        "kind": "adjustment",
        "reason": "Compensation for a lost connection",
        "request_key": page.context["form"]["request_key"].value(),
        **fields,
    }
    return client.post(ADJUST, data)


def test_staff_credit_requires_a_reason(staff_client, ledger):
    anna, _ = ledger
    response = _adjust(staff_client, reason="   ")
    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    assert not LedgerTransaction.objects.filter(kind="adjustment").exists()
    assert selectors.user_balance(user=anna) == 5_000


def test_staff_credit_records_the_staff_member_and_posts_once(staff_client, staff, ledger):
    anna, _ = ledger
    page = staff_client.get(ADJUST)
    data = {
        "player": "anna",
        "direction": "credit",
        "amount": "12.50",
        "kind": "adjustment",
        "reason": "Compensation for a lost connection",
        "request_key": page.context["form"]["request_key"].value(),
    }
    assert staff_client.post(ADJUST, data).status_code == 302
    assert staff_client.post(ADJUST, data).status_code == 302  # double submit
    adjustment = LedgerTransaction.objects.get(kind="adjustment")
    assert adjustment.initiated_by == staff
    assert adjustment.memo == "Compensation for a lost connection"
    assert selectors.user_balance(user=anna) == 5_000 + 1_250
    assert Account.objects.get(kind=Account.Kind.HOUSE).balance == -1_250
    audit = StaffAction.objects.get(action="wallet.adjust")
    assert (audit.staff, audit.action, audit.player, audit.reason) == (
        staff,
        "wallet.adjust",
        anna,
        "Compensation for a lost connection",
    )


def test_a_staff_bonus_is_its_own_kind_never_a_deposit_and_only_a_credit(
    client, staff_client, ledger
):
    anna, _ = ledger
    deposits_before = LedgerTransaction.objects.filter(kind="deposit").count()
    assert _adjust(staff_client, kind="bonus", reason="Welcome bonus").status_code == 302
    bonus = LedgerTransaction.objects.get(kind="bonus")
    assert bonus.memo == "Welcome bonus"
    assert LedgerTransaction.objects.filter(kind="deposit").count() == deposits_before
    refused = _adjust(staff_client, kind="bonus", direction="debit", amount="1.00")
    assert refused.status_code == 200
    assert LedgerTransaction.objects.filter(kind="bonus").count() == 1
    client.force_login(anna)
    html = client.get("/wallet/").content.decode()
    assert "Бонус от администрации" in html and "Welcome bonus" in html


def test_staff_debit_cannot_overdraw(staff_client, ledger):
    anna, _ = ledger
    response = _adjust(staff_client, direction="debit", amount="50.01")
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert selectors.user_balance(user=anna) == 5_000
    response = _adjust(staff_client, direction="debit", amount="50.00")
    assert response.status_code == 302
    assert selectors.user_balance(user=anna) == 0


def test_adjustment_needs_the_permission(client, make_user, ledger):
    clerk = make_user(is_staff=True)
    client.force_login(clerk)
    assert client.get(ADJUST).status_code == 403


def test_staff_adjust_service_refuses_without_reason_or_permission(make_user, staff):
    player = make_user(balance=100)
    clerk = make_user(is_staff=True)
    with pytest.raises(services.InvalidCommand):
        services.staff_adjust(
            user=player, amount=5, reason=" ", staff_user=staff, idempotency_key="a"
        )
    for unauthorised in (player, clerk, None):
        with pytest.raises(services.NotAllowed):
            services.staff_adjust(
                user=player, amount=5, reason="x", staff_user=unauthorised, idempotency_key="a"
            )
    with pytest.raises(services.InvalidAmount):
        services.staff_adjust(
            user=player, amount=0, reason="x", staff_user=staff, idempotency_key="a"
        )
    assert selectors.user_balance(user=player) == 100
    clerk.user_permissions.add(Permission.objects.get(codename="adjust_balance"))
    clerk = type(clerk).objects.get(pk=clerk.pk)  # permissions are cached on the instance
    services.staff_adjust(user=player, amount=5, reason="x", staff_user=clerk, idempotency_key="a")
    assert selectors.user_balance(user=player) == 105


def test_changelists_render_their_filters_and_apply_them(staff_client, ledger):
    anna, _ = ledger
    url = reverse("admin:wallet_ledgertransaction_changelist")
    page = staff_client.get(url + "?player=anna&kind__exact=stake_release")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'name="created_at__date__gte"' in html
    assert 'name="player" value="anna"' in html
    # Each filter's form keeps the others.
    assert 'type="hidden" name="kind__exact" value="stake_release"' in html
    assert [t.idempotency_key for t in page.context["cl"].result_list] == ["release:table:3:seat:1"]

    entries = staff_client.get(reverse("admin:wallet_entry_changelist") + "?player=anna")
    assert entries.status_code == 200
    assert {entry.account.user_id for entry in entries.context["cl"].result_list} == {anna.pk}

    broken = staff_client.get(url + "?created_at__date__gte=not-a-date")
    assert broken.status_code == 302
    assert "e=1" in broken["Location"]


def test_account_pages_render(staff_client, ledger):
    anna, _ = ledger
    account = Account.objects.get(kind=Account.Kind.USER, user=anna)
    listing = staff_client.get(reverse("admin:wallet_account_changelist"))
    assert listing.status_code == 200
    assert ADJUST in listing.content.decode()
    detail = staff_client.get(reverse("admin:wallet_account_change", args=[account.pk]))
    assert detail.status_code == 200
    assert "50,00 ₽" in detail.content.decode()
    assert staff_client.get(ADJUST + "?player=anna").context["form"]["player"].value() == "anna"
