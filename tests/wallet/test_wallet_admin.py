"""Staff tools: read-only ledger, filtered exports, credit / debit with a reason."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import openpyxl
import pytest
from django.urls import reverse
from django.utils import timezone

from durak_site.audit.models import StaffAction
from wallet import selectors, services
from wallet.models import Account, LedgerTransaction

pytestmark = pytest.mark.django_db

TRANSACTIONS_EXPORT = reverse("admin:wallet_ledgertransaction_export")
ENTRIES_EXPORT = reverse("admin:wallet_entry_export")
ADJUST = reverse("admin:wallet_account_adjust")


@pytest.fixture
def ledger(make_user):
    """Two players with deposits, a stake held and released, and a withdrawal."""
    anna = make_user(nickname="anna", balance=5_000)
    boris = make_user(nickname="boris", balance=7_000)
    services.stake_hold(user=anna, table_id=3, amount=1_000, idempotency_key="hold:table:3:seat:1")
    services.stake_hold(user=boris, table_id=3, amount=1_000, idempotency_key="hold:table:3:seat:2")
    services.stake_release(
        user=anna, table_id=3, amount=1_000, idempotency_key="release:table:3:seat:1"
    )
    services.withdraw(user=boris, amount=500, idempotency_key="w:1", initiated_by=None, memo="")
    return anna, boris


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def _csv_rows(response) -> list[dict]:
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))


def _xlsx_rows(response) -> list[dict]:
    assert response.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    header, *rows = sheet.iter_rows(values_only=True)
    return [dict(zip(header, row, strict=True)) for row in rows]


def test_transaction_export_contains_exactly_the_filtered_rows(staff_client, ledger):
    anna, _ = ledger
    today = timezone.localdate().isoformat()
    query = f"?kind__exact=stake_hold&player=ANNA&created_at__date__gte={today}"
    expected = LedgerTransaction.objects.get(idempotency_key="hold:table:3:seat:1")

    page = staff_client.get(TRANSACTIONS_EXPORT + query)
    assert page.status_code == 200
    rows = _csv_rows(
        staff_client.post(TRANSACTIONS_EXPORT + query, {"format": "0", "resource": "0"})
    )

    assert [int(row["id"]) for row in rows] == [expected.pk]
    assert rows[0]["amount"] == "1000"
    assert rows[0]["table_id"] == "3"
    assert rows[0]["idempotency_key"] == "hold:table:3:seat:1"


def test_transaction_export_by_date_range_and_kind_as_xlsx(staff_client, ledger):
    today = timezone.localdate()
    deposits = set(LedgerTransaction.objects.filter(kind="deposit").values_list("pk", flat=True))
    query = f"?kind__exact=deposit&created_at__date__gte={today}&created_at__date__lte={today}"
    rows = _xlsx_rows(
        staff_client.post(TRANSACTIONS_EXPORT + query, {"format": "1", "resource": "0"})
    )
    assert {row["id"] for row in rows} == deposits
    assert len(rows) == 2

    yesterday = (today - timedelta(days=1)).isoformat()
    query = f"?created_at__date__lte={yesterday}"
    rows = _xlsx_rows(
        staff_client.post(TRANSACTIONS_EXPORT + query, {"format": "1", "resource": "0"})
    )
    assert rows == []


def test_entry_export_filtered_by_player(staff_client, ledger):
    _, boris = ledger
    response = staff_client.post(ENTRIES_EXPORT + "?player=boris@example.com", {"format": "0"})
    rows = _csv_rows(response)
    assert {row["player"] for row in rows} == {"boris"}
    assert sorted((int(row["amount"]), int(row["balance_after"])) for row in rows) == [
        (-1_000, 6_000),
        (-500, 5_500),
        (7_000, 7_000),
    ]


def test_statement_export_lists_one_wallet_with_balance_after(staff_client, ledger):
    anna, _ = ledger
    account = Account.objects.get(kind=Account.Kind.USER, user=anna)
    rows = _csv_rows(
        staff_client.get(reverse("admin:wallet_account_statement", args=[account.pk, "csv"]))
    )
    assert [(int(row["amount"]), int(row["balance_after"])) for row in rows] == [
        (5_000, 5_000),
        (-1_000, 4_000),
        (1_000, 5_000),
    ]
    xlsx = _xlsx_rows(
        staff_client.get(reverse("admin:wallet_account_statement", args=[account.pk, "xlsx"]))
    )
    assert [row["balance_after"] for row in xlsx] == [5_000, 4_000, 5_000]


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
    audit = StaffAction.objects.get()
    assert (audit.staff, audit.action, audit.player, audit.reason) == (
        staff,
        "wallet.adjust",
        anna,
        "Compensation for a lost connection",
    )


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


def test_staff_adjust_service_refuses_without_reason_or_staff(make_user, staff):
    player = make_user(balance=100)
    with pytest.raises(services.InvalidCommand):
        services.staff_adjust(
            user=player, amount=5, reason=" ", staff_user=staff, idempotency_key="a"
        )
    with pytest.raises(services.InvalidCommand):
        services.staff_adjust(
            user=player, amount=5, reason="x", staff_user=player, idempotency_key="a"
        )
    with pytest.raises(services.InvalidAmount):
        services.staff_adjust(
            user=player, amount=0, reason="x", staff_user=staff, idempotency_key="a"
        )
    assert selectors.user_balance(user=player) == 100


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
