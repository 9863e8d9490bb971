"""A play-money site: chips in every place an amount is shown, no cashier, a daily top-up."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone, translation
from pypdf import PdfReader

from durak_site.accounts.closure import account_close
from tests.spreadsheets import read_csv, read_xlsx
from wallet import play_money, services
from wallet.models import Account, LedgerTransaction
from wallet.money import format_money, money_format_spec, money_label
from wallet.payments import enabled_providers
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db
FLOOR = 1_000_00


@pytest.fixture
def chips(settings):
    settings.PLAY_MONEY = True
    settings.PLAY_MONEY_DAILY_FLOOR = FLOOR
    settings.PAYMENTS_TEST_MODE = True  # a provider that would be offered on a money site


@pytest.mark.parametrize(
    ("language", "amount", "text"),
    [
        ("ru", 100, "1 фишка"),
        ("ru", 300, "3 фишки"),
        ("ru", 125_000, "1 250 фишек"),
        ("ru", -2_100, "\u221221 фишка"),
        ("ru", 1_250, "12,50 фишки"),
        ("en", 100, "1 chip"),
        ("en", 125_000, "1,250 chips"),
        ("en", 1_250, "12.50 chips"),
    ],
)
def test_amounts_are_chips(chips, language, amount, text):
    with translation.override(language):
        assert format_money(amount) == text
        assert "₽" not in str(money_label("Stake"))
        assert money_format_spec()["chips"]["one"] % {"amount": "1"} == format_money(100)


def test_no_cashier_and_no_provider(chips, client, make_user):
    assert enabled_providers() == {}
    client.force_login(make_user())
    for name, args in [
        ("deposit", []),
        ("withdraw", []),
        ("payment_notify", ["test"]),
        ("withdrawal_cancel", [1]),
    ]:
        method = client.post if name in ("payment_notify", "withdrawal_cancel") else client.get
        assert method(reverse(name, args=args)).status_code == 404, name
    page = client.get(reverse("wallet")).content.decode()
    assert reverse("deposit") not in page and reverse("withdraw") not in page
    # The header's top-up for an empty wallet leads to the free chips.
    assert f'href="{reverse("wallet")}" data-testid="header-deposit"' in page


def test_the_daily_top_up_fills_the_wallet_to_the_floor_once_a_day(
    chips, client, make_user, monkeypatch
):
    player = make_user()
    client.force_login(player)
    page = client.get(reverse("wallet")).content.decode()
    assert "Взять 1 000 фишек" in page
    response = client.post(reverse("chips_top_up"), follow=True)
    assert user_balance(user=player) == FLOOR
    assert "1 000 фишек — в вашем кошельке" in response.content.decode()
    top_up = LedgerTransaction.objects.get(kind=LedgerTransaction.Kind.CHIPS_TOP_UP)
    assert {entry.account.kind: entry.amount for entry in top_up.entries.all()} == {
        Account.Kind.USER: FLOOR,
        Account.Kind.HOUSE: -FLOOR,
    }

    # Spent down to 250 chips: not again today, whatever the balance.
    services.stake_hold(user=player, table_id=7, amount=750_00, idempotency_key="hold:7")
    response = client.post(reverse("chips_top_up"), follow=True)
    assert "Сегодняшние бесплатные фишки вы уже взяли" in response.content.decode()
    assert user_balance(user=player) == 250_00
    assert 'data-testid="top-up"' not in response.content.decode()

    # The next day, up to the floor again; chips at the table do not count.
    tomorrow = timezone.localdate() + timedelta(days=1)
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: tomorrow)
    play_money.chips_top_up(user=player)
    assert user_balance(user=player) == FLOOR
    call_command("ledger_check")


def test_no_top_up_at_or_above_the_floor_nor_on_a_money_site(chips, settings, make_user):
    rich = make_user(balance=FLOOR)
    with pytest.raises(play_money.TopUpRefused, match="уже не меньше"):
        play_money.chips_top_up(user=rich)
    settings.PLAY_MONEY = False
    poor = make_user()
    with pytest.raises(play_money.TopUpRefused):
        play_money.chips_top_up(user=poor)
    assert not LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.CHIPS_TOP_UP).exists()


def test_pages_exports_and_statements_show_no_ruble(chips, client, make_user, staff):
    player = make_user(nickname="fishka")
    play_money.chips_top_up(user=player)
    client.force_login(player)
    for url in ["/", reverse("lobby"), reverse("rules"), reverse("wallet"), reverse("limits")]:
        page = client.get(url).content.decode()
        assert "₽" not in page, url
    assert "1 000 фишек" in client.get(reverse("wallet")).content.decode()
    assert "ставка 100 фишек, банк 400 фишек" in client.get(reverse("rules")).content.decode()

    client.force_login(staff)
    export = reverse("admin:wallet_ledgertransaction_export")
    table = read_xlsx(client.post(export, {"format": "0"}))
    assert "Сумма, фишки" in table.header and not any("₽" in h for h in table.header)
    text = read_csv(client.post(export, {"format": "1"}), delimiter=";")
    assert "₽" not in str(text.header) + str(text.rows)
    wallet = Account.objects.get(kind=Account.Kind.USER, user=player)
    today = timezone.localdate()
    statement = reverse("admin:wallet_account_statement", args=[wallet.pk])
    pdf = client.get(f"{statement}?since={today}&until={today}&format=pdf")
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "1 000 фишек" in text and "₽" not in text


def test_an_account_closes_with_chips_left_in_it(chips, make_user):
    player = make_user()
    play_money.chips_top_up(user=player)
    account_close(user=player)
    player.refresh_from_db()
    assert player.closed_at is not None
    assert user_balance(user=player) == FLOOR
    call_command("ledger_check")
