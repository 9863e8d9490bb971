"""Ledger exports open right in a spreadsheet: typed cells, local time, rubles, admin language."""

from __future__ import annotations

import csv
import shutil
import subprocess
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.spreadsheets import SCREENSHOTS, keep_sample, read_csv, read_xlsx
from wallet import services
from wallet.models import Account, Entry, LedgerTransaction

pytestmark = pytest.mark.django_db

TRANSACTIONS_EXPORT = reverse("admin:wallet_ledgertransaction_export")
ENTRIES_EXPORT = reverse("admin:wallet_entry_export")
XLSX, CSV = "0", "1"
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}

TRANSACTION_HEADERS_RU = [
    "№ проводки",
    "Дата и время",
    "Вид",
    "Сумма, ₽",
    "Примечание",
    "Инициатор",
    "Стол",
    "Игра",
    "Записи",
    "Ключ запроса",
]
TRANSACTION_HEADERS_EN = [
    "Transaction no.",
    "Date and time",
    "Kind",
    "Amount, ₽",
    "Memo",
    "Initiated by",
    "Table",
    "Game",
    "Entries",
    "Idempotency key",
]


def _local_wall_clock(moment: datetime) -> datetime:
    return timezone.localtime(moment).replace(tzinfo=None, microsecond=0)


def test_transactions_xlsx_has_local_date_cells_rubles_and_russian_headers(staff_client, ledger):
    today = timezone.localdate().isoformat()
    query = f"?created_at__date__gte={today}&created_at__date__lte={today}&kind__exact=deposit"
    form = staff_client.get(TRANSACTIONS_EXPORT + query).content.decode()
    assert form.index(">xlsx<") < form.index(">csv<")  # the spreadsheet first
    response = staff_client.post(TRANSACTIONS_EXPORT + query, {"format": XLSX})
    keep_sample("transactions.xlsx", response)
    table = read_xlsx(response)

    assert table.filename == f"transactions_{today}_{today}_deposit_MSK.xlsx"
    assert table.title == "Проводки"
    assert table.header == TRANSACTION_HEADERS_RU
    deposits = LedgerTransaction.objects.filter(kind="deposit").order_by("-id")
    assert table.column("№ проводки") == [deposit.pk for deposit in deposits]
    for row, deposit in zip(table.rows, deposits, strict=True):
        # A real date cell holding Moscow wall-clock time, not text and not UTC.
        assert isinstance(row["Дата и время"], datetime)
        assert row["Дата и время"].replace(microsecond=0) == _local_wall_clock(deposit.created_at)
        assert row["Вид"] == "пополнение"
    assert table.column("Сумма, ₽") == [70, 50]
    assert "кошелёк игрока: anna: +50,00 ₽" in table.rows[1]["Записи"]


def test_transactions_xlsx_speaks_english_to_an_english_admin(staff_client, ledger):
    table = read_xlsx(staff_client.post(TRANSACTIONS_EXPORT, {"format": XLSX}, **ENGLISH))
    assert table.filename == "transactions_all_MSK.xlsx"
    assert table.title == "Transactions"
    assert table.header == TRANSACTION_HEADERS_EN
    assert {row["Kind"] for row in table.rows} == {
        "deposit",
        "stake held",
        "stake returned",
        "withdrawal requested",
        "withdrawal",
    }
    moved = sum(
        entry.amount
        for entry in Entry.objects.filter(amount__gt=0)
        if entry.transaction_id in {row["Transaction no."] for row in table.rows}
    )
    assert sum(Decimal(str(value)) for value in table.column("Amount, ₽")) * 100 == moved


def test_csv_for_a_russian_admin_has_a_bom_semicolons_and_decimal_commas(staff_client, ledger):
    anna, _ = ledger
    table = read_csv(
        staff_client.post(ENTRIES_EXPORT + "?player=anna", {"format": CSV}), delimiter=";"
    )
    assert table.filename == "entries_anna_MSK.csv"
    assert table.header[:8] == [
        "№ записи",
        "Дата и время",
        "№ проводки",
        "Вид",
        "Счёт",
        "Игрок",
        "Сумма, ₽",
        "Баланс после, ₽",
    ]
    first = Entry.objects.filter(account__user=anna).order_by("id").first()
    row = next(row for row in table.rows if row["№ записи"] == str(first.pk))
    assert row["Дата и время"] == _local_wall_clock(first.transaction.created_at).strftime(
        "%d.%m.%Y %H:%M:%S"
    )
    assert row["Баланс после, ₽"] == "50,00"
    assert [row["Сумма, ₽"] for row in table.rows] == ["50,00", "-10,00", "10,00"]


def test_csv_for_an_english_admin_uses_commas_and_decimal_points(staff_client, ledger):
    table = read_csv(
        staff_client.post(ENTRIES_EXPORT + "?player=boris", {"format": CSV}, **ENGLISH),
        delimiter=",",
    )
    assert table.header[6:8] == ["Amount, ₽", "Balance after, ₽"]
    assert [row["Amount, ₽"] for row in table.rows] == ["70.00", "-10.00", "-5.00"]
    created = datetime.strptime(table.rows[0]["Date and time"], "%Y-%m-%d %H:%M:%S")
    assert abs(created - _local_wall_clock(timezone.now())) < timedelta(minutes=1)


def test_entries_xlsx_totals_match_the_ledger(staff_client, ledger):
    response = staff_client.post(ENTRIES_EXPORT, {"format": XLSX})
    keep_sample("entries.xlsx", response)
    table = read_xlsx(response)
    assert table.title == "Записи"
    assert len(table.rows) == Entry.objects.count()
    # Every transaction balances, so the exported amounts of all entries sum to zero.
    assert sum(Decimal(str(value)) for value in table.column("Сумма, ₽")) == 0
    wallets = {
        row["Игрок"]: Decimal(str(row["Баланс после, ₽"]))
        for row in sorted(table.rows, key=lambda row: row["№ записи"])
        if row["Игрок"]
    }
    balances = dict(Account.objects.filter(kind="user").values_list("user__username", "balance"))
    assert {name: value * 100 for name, value in wallets.items()} == balances


def test_a_staff_credit_exports_with_its_staff_member(staff_client, staff, ledger):
    anna, _ = ledger
    services.staff_adjust(
        user=anna, amount=1_234, reason="Goodwill", staff_user=staff, idempotency_key="adj:1"
    )
    table = read_xlsx(
        staff_client.post(TRANSACTIONS_EXPORT + "?kind__exact=adjustment", {"format": XLSX})
    )
    assert [(row["Инициатор"], row["Сумма, ₽"], row["Примечание"]) for row in table.rows] == [
        ("cashier", 12.34, "Goodwill")
    ]


@pytest.mark.slow
def test_the_transactions_xlsx_opens_in_libreoffice_with_local_dates_and_rubles(
    staff_client, ledger, tmp_path
):
    """LibreOffice Calc reads the file as a spreadsheet program would: the cells it shows are
    dates in Moscow time and numbers; a picture of the printed sheet is kept for people."""
    assert shutil.which("soffice") and shutil.which("pdftoppm"), "./dev setup installs them"
    response = staff_client.post(TRANSACTIONS_EXPORT, {"format": XLSX})
    book = tmp_path / "transactions.xlsx"
    book.write_bytes(response.content)
    office = ["soffice", f"-env:UserInstallation=file://{tmp_path}/profile", "--headless"]
    # As shown on screen: semicolons, UTF-8, formatted cell texts; and printed.
    for target in ("csv:Text - txt - csv (StarCalc):59,34,76,1,,0,false,true,true", "pdf"):
        subprocess.run(
            [*office, "--convert-to", target, "--outdir", str(tmp_path), str(book)],
            check=True,
            capture_output=True,
            timeout=120,
        )

    header, *rows = csv.reader(
        (tmp_path / "transactions.csv").read_text(encoding="utf-8").splitlines(), delimiter=";"
    )
    assert header == TRANSACTION_HEADERS_RU
    cells = read_xlsx(response).rows
    transactions = LedgerTransaction.objects.order_by("-id")
    assert len(rows) == len(cells) == transactions.count()
    for row, cell, transaction in zip(rows, cells, transactions, strict=True):
        wall_clock = _local_wall_clock(transaction.created_at)
        assert row[1] == wall_clock.strftime("%d.%m.%Y %H:%M:%S"), row
        assert Decimal(row[3]) == Decimal(str(cell["Сумма, ₽"])), row  # a number, in rubles

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    picture = SCREENSHOTS / "export-transactions-xlsx-libreoffice"
    subprocess.run(
        ["pdftoppm", "-png", "-r", "150", "-singlefile", "-H", "500", "-W", "2000"]
        + [str(tmp_path / "transactions.pdf"), str(picture)],
        check=True,
        timeout=60,
    )
    assert picture.with_suffix(".png").stat().st_size > 10_000
