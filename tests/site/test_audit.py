"""The staff audit trail: who did what to whom, when and why; append-only; exportable."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from durak_site.audit.models import StaffAction
from durak_site.audit.services import record_staff_action
from tests.players import create_player, create_staff
from tests.spreadsheets import read_xlsx
from wallet import services as wallet_services
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:audit_staffaction_changelist")
EXPORT = reverse("admin:audit_staffaction_export")


@pytest.fixture
def staff():
    return create_staff(nickname="auditor")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def test_a_record_says_who_what_whom_and_why(staff):
    anna = create_player(nickname="anna")
    record = record_staff_action(
        staff=staff, action="accounts.block", reason="  Abusive chat  ", target=anna
    )
    record.refresh_from_db()
    assert (record.staff, record.action, record.player, record.reason) == (
        staff,
        "accounts.block",
        anna,
        "Abusive chat",
    )
    assert record.target == f"accounts.user #{anna.pk}"
    assert record.created_at is not None


def test_a_record_needs_staff_an_action_and_a_reason(staff):
    anna = create_player(nickname="anna")
    with pytest.raises(ValidationError):
        record_staff_action(staff=anna, action="accounts.block", reason="x", target=anna)
    with pytest.raises(ValidationError):
        record_staff_action(staff=staff, action="", reason="x", target=anna)
    with pytest.raises(ValidationError):
        record_staff_action(staff=staff, action="accounts.block", reason=" ", target=anna)
    assert not StaffAction.objects.exists()


def test_the_same_idempotency_key_records_once(staff):
    first = record_staff_action(staff=staff, action="x.y", reason="r", idempotency_key="k:1")
    again = record_staff_action(staff=staff, action="x.y", reason="r", idempotency_key="k:1")
    assert again.pk == first.pk
    assert StaffAction.objects.count() == 1


def test_the_database_refuses_to_change_or_delete_a_record(staff):
    record = record_staff_action(staff=staff, action="x.y", reason="r")
    with pytest.raises(IntegrityError), transaction.atomic():
        StaffAction.objects.filter(pk=record.pk).update(reason="nothing happened")
    with pytest.raises(IntegrityError), transaction.atomic():
        StaffAction.objects.filter(pk=record.pk).delete()
    assert StaffAction.objects.get(pk=record.pk).reason == "r"


def test_a_wallet_adjustment_is_recorded_once_with_its_transaction(staff):
    anna = create_player(nickname="anna", balance=1_000)
    for _ in range(2):  # a retry with the same key
        wallet_services.staff_adjust(
            user=anna, amount=-300, reason="Chargeback", staff_user=staff, idempotency_key="adj:1"
        )
    adjustment = LedgerTransaction.objects.get(kind="adjustment")
    record = StaffAction.objects.get()
    assert (record.staff, record.action, record.player, record.reason) == (
        staff,
        "wallet.adjust",
        anna,
        "Chargeback",
    )
    assert record.target == f"wallet.ledgertransaction #{adjustment.pk}"
    assert record.details == {"amount": -300, "kind": "adjustment"}


def test_a_refused_adjustment_leaves_no_record(staff):
    anna = create_player(nickname="anna", balance=100)
    with pytest.raises(wallet_services.InsufficientFunds):
        wallet_services.staff_adjust(
            user=anna, amount=-101, reason="Chargeback", staff_user=staff, idempotency_key="adj:1"
        )
    assert not StaffAction.objects.exists()


def test_the_admin_shows_and_exports_but_never_edits(staff_client, staff):
    anna = create_player(nickname="anna")
    record = record_staff_action(staff=staff, action="accounts.block", reason="Spam", target=anna)
    record_staff_action(staff=staff, action="wallet.adjust", reason="Bonus", player=anna)

    page = staff_client.get(CHANGELIST + "?action=accounts.block")
    assert page.status_code == 200
    assert [row.pk for row in page.context["cl"].result_list] == [record.pk]
    detail = staff_client.get(reverse("admin:audit_staffaction_change", args=[record.pk]))
    assert detail.status_code == 200
    assert 'name="reason"' not in detail.content.decode()  # shown, not editable
    assert staff_client.get(reverse("admin:audit_staffaction_add")).status_code == 403
    delete = reverse("admin:audit_staffaction_delete", args=[record.pk])
    assert staff_client.post(delete, {"post": "yes"}).status_code == 403
    assert (
        staff_client.post(
            reverse("admin:audit_staffaction_change", args=[record.pk]), {"reason": "edited"}
        ).status_code
        == 403
    )
    assert StaffAction.objects.get(pk=record.pk).reason == "Spam"

    table = read_xlsx(staff_client.post(EXPORT + "?action=accounts.block", {"format": "0"}))
    assert table.filename == "staff-actions_accounts-block_MSK.xlsx"
    assert table.title == "Действия персонала"
    assert [
        (row["Сотрудник"], row["Действие"], row["Игрок"], row["Причина"]) for row in table.rows
    ] == [("auditor", "accounts.block", "anna", "Spam")]
    assert isinstance(table.rows[0]["Когда"], datetime)
