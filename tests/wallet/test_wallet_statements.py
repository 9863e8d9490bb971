"""A player's statement: opening balance, every movement, closing balance, as XLSX and PDF."""

from __future__ import annotations

import io
import re
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from tests.spreadsheets import keep_sample, read_xlsx
from wallet import services
from wallet.models import Account
from wallet.money import format_money
from wallet.statements import account_statement_for

pytestmark = pytest.mark.django_db
CREDITS = 60  # enough movements for the PDF to run over several pages


@pytest.fixture
def busy_wallet(make_user, staff):
    """Anna: a deposit, sixty staff credits of 1..60 ₽ and one debit of 100 ₽."""
    anna = make_user(nickname="anna", balance=5_000)
    for number in range(1, CREDITS + 1):
        services.staff_adjust(
            user=anna,
            amount=number * 100,
            reason=f"Бонус №{number}",
            staff_user=staff,
            idempotency_key=f"bonus:{number}",
        )
    services.staff_adjust(
        user=anna, amount=-10_000, reason="Возврат", staff_user=staff, idempotency_key="back"
    )
    return Account.objects.get(kind=Account.Kind.USER, user=anna)


def statement_url(account, **query) -> str:
    params = "&".join(f"{key}={value}" for key, value in query.items())
    return reverse("admin:wallet_account_statement", args=[account.pk]) + f"?{params}"


def test_opening_plus_movements_is_closing(busy_wallet):
    today = timezone.localdate()
    statement = account_statement_for(account=busy_wallet, since=today, until=today)
    assert statement.opening_balance == 0
    assert len(statement.lines) == 1 + CREDITS + 1
    assert statement.credits == 5_000 + sum(n * 100 for n in range(1, CREDITS + 1))
    assert statement.debits == -10_000
    assert statement.closing_balance == busy_wallet.balance
    assert statement.opening_balance + statement.credits + statement.debits == busy_wallet.balance

    later = today + timedelta(days=1)
    quiet = account_statement_for(account=busy_wallet, since=later, until=later)
    assert quiet.opening_balance == quiet.closing_balance == busy_wallet.balance
    assert quiet.lines == []


def test_statement_xlsx_has_the_balances_around_typed_movements(staff_client, busy_wallet):
    today = timezone.localdate()
    response = staff_client.get(statement_url(busy_wallet, since=today, until=today, format="xlsx"))
    keep_sample("statement.xlsx", response)
    table = read_xlsx(response)
    assert table.filename == f"statement_anna_{today}_{today}_MSK.xlsx"
    assert table.title == "Выписка anna"
    assert table.header == ["Дата и время", "Вид", "Описание", "Сумма, ₽", "Баланс, ₽"]
    opening, *movements, closing = table.rows
    assert (opening["Вид"], opening["Баланс, ₽"]) == ("Входящий остаток", 0)
    assert closing["Вид"] == "Исходящий остаток"
    assert Decimal(str(closing["Баланс, ₽"])) * 100 == busy_wallet.balance
    assert len(movements) == CREDITS + 2
    assert all(isinstance(row["Дата и время"], datetime) for row in movements)
    total = sum(Decimal(str(row["Сумма, ₽"])) for row in movements)
    assert total * 100 == busy_wallet.balance
    assert movements[1]["Описание"] == "Бонус №1" and movements[1]["Сумма, ₽"] == 1


def test_statement_pdf_pages_carry_the_heading_the_numbers_and_cyrillic(staff_client, busy_wallet):
    today = timezone.localdate()
    response = staff_client.get(statement_url(busy_wallet, since=today, until=today, format="pdf"))
    assert response.status_code == 200
    keep_sample("statement.pdf", response)
    assert response["Content-Type"] == "application/pdf"
    assert f"statement_anna_{today}_{today}_MSK.pdf" in response["Content-Disposition"]
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages]
    assert len(pages) >= 2
    for number, text in enumerate(pages, start=1):
        assert f"Страница {number} из {len(pages)}" in text
        assert "Дата и время" in text  # the table's heading repeats on every page
        assert "Выписка: anna" in text
    first = pages[0]
    assert "Выписка по кошельку" in first
    assert re.search(r"Входящий остаток\s*0,00 ₽", first)
    assert format_money(busy_wallet.balance) in first
    whole = "\n".join(pages)
    # Every movement is printed once, with its reason.
    for number in range(1, CREDITS + 1):
        assert len(re.findall(rf"Бонус №{number}(?!\d)", whole)) == 1, number
    assert "−100,00 ₽" in whole


def test_statement_page_offers_the_files_and_refuses_a_backwards_period(staff_client, busy_wallet):
    page = staff_client.get(reverse("admin:wallet_account_statement", args=[busy_wallet.pk]))
    assert page.status_code == 200
    assert "format=pdf" in page.content.decode() and "format=xlsx" in page.content.decode()
    backwards = staff_client.get(
        statement_url(busy_wallet, since="2026-12-07", until="2026-12-01", format="pdf")
    )
    assert backwards.status_code == 200
    assert backwards["Content-Type"].startswith("text/html")
    assert "Период заканчивается раньше, чем начинается." in backwards.content.decode()
