"""The cashier in real browsers: deposit through the test provider, play, ask for a withdrawal,
and a staff member approves it; the balances are checked on the pages at every step."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from playwright.sync_api import Page, expect

from games.models import Game, Table
from tests.e2e.test_browser import DESKTOP, PHONE, sign_up
from tests.players import PASSWORD, create_player, totp_code
from wallet.models import Account, Payment, Withdrawal
from wallet.selectors import user_balance

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

DEPOSIT_RUB = 1000
STAKE_RUB = 100
WITHDRAW_RUB = 500


def rubles(kopecks: int) -> str:
    """How a page writes an amount in Russian, without the sign: 1 000,00."""
    return f"{kopecks // 100:,}".replace(",", " ") + f",{kopecks % 100:02d}"


def balance_of(nickname: str) -> int:
    return user_balance(user=get_user_model().objects.get(username=nickname))


def expect_balance(page: Page, live_url: str, step: str, nickname: str, log: list[str]) -> int:
    """The wallet page and the header show the ledger's balance; record it for the report."""
    balance = balance_of(nickname)
    page.goto(f"{live_url}/wallet/")
    expect(page.get_by_test_id("wallet-balance")).to_have_text(re.compile(rubles(balance)))
    expect(page.get_by_test_id("balance")).to_contain_text(rubles(balance))
    log.append(f"{step}: {nickname} {rubles(balance)} ₽")
    return balance


def deposit_through_test_provider(page: Page, live_url: str, name: str, screenshot) -> None:
    page.goto(f"{live_url}/wallet/")
    page.get_by_test_id("deposit-link").click()
    expect(page).to_have_url(re.compile(r"/wallet/deposit/$"))
    page.fill("input[name=amount]", str(DEPOSIT_RUB))
    screenshot(page, f"cashier-deposit-{name}")
    page.get_by_test_id("deposit-submit").click()
    expect(page).to_have_url(re.compile(r"/wallet/payments/test/[0-9a-f-]+/$"))
    expect(page.get_by_test_id("test-payment")).to_contain_text("ТЕСТОВЫЙ РЕЖИМ")
    screenshot(page, f"cashier-test-payment-{name}")
    page.get_by_test_id("test-pay").click()
    expect(page).to_have_url(re.compile(r"/wallet/deposit/[0-9a-f-]+/$"))
    expect(page.get_by_test_id("payment-status")).to_have_text("зачислен")
    screenshot(page, f"cashier-deposit-status-{name}")


def test_deposit_play_withdraw_and_staff_approval_with_balances_at_each_step(
    browser, live_url, screenshot, play_out, off_loop
):
    log: list[str] = []
    anna = sign_up(browser, live_url, "anna", funds=0)
    boris = sign_up(browser, live_url, "boris", viewport=PHONE, funds=0)
    assert expect_balance(anna, live_url, "signed up", "anna", log) == 0
    screenshot(anna, "cashier-wallet-empty-desktop")

    # 1. Deposits through the test provider, on a desktop and on a phone.
    deposit_through_test_provider(anna, live_url, "desktop", screenshot)
    deposit_through_test_provider(boris, live_url, "phone", screenshot)
    for page, name in ((anna, "anna"), (boris, "boris")):
        assert expect_balance(page, live_url, "deposited", name, log) == DEPOSIT_RUB * 100
    assert Payment.objects.filter(status=Payment.Status.SUCCEEDED).count() == 2
    screenshot(boris, "cashier-wallet-phone")

    # 2. A game for stakes: the stake is held at the table, then the bank is paid out.
    anna.goto(f"{live_url}/lobby/")
    anna.fill("input[name=stake]", str(STAKE_RUB))
    anna.select_option("select[name=seats]", "2")
    anna.get_by_test_id("create-submit").click()
    expect(anna).to_have_url(re.compile(r"/table/\d+/$"))
    table_id = int(anna.url.rstrip("/").rsplit("/", 1)[1])
    boris.goto(f"{live_url}/lobby/")
    boris.locator(f"[data-table-id='{table_id}']").get_by_test_id("join").click()
    expect(boris.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    assert Table.objects.get(pk=table_id).status == Table.Status.PLAYING
    held = {name: balance_of(name) for name in ("anna", "boris")}
    assert held == {"anna": 900_00, "boris": 900_00}
    log.append(f"stakes held: anna {rubles(held['anna'])} ₽, boris {rubles(held['boris'])} ₽")
    game = off_loop(play_out, Game.objects.get(table_id=table_id))
    assert game.status == Game.Status.FINISHED
    after_game = {
        name: expect_balance(page, live_url, "game paid out", name, log)
        for page, name in ((anna, "anna"), (boris, "boris"))
    }
    assert sum(after_game.values()) == 2 * DEPOSIT_RUB * 100

    # 3. Anna asks for a withdrawal: the amount leaves her wallet at once.
    anna.goto(f"{live_url}/wallet/")
    anna.get_by_test_id("withdraw-link").click()
    anna.fill("input[name=amount]", str(WITHDRAW_RUB))
    anna.fill("textarea[name=payout_details]", "Карта 2200 0000 0000 0001, Анна А.")
    screenshot(anna, "cashier-withdraw-desktop")
    anna.get_by_test_id("withdraw-submit").click()
    expect(anna.get_by_test_id("withdrawal-status")).to_have_text("на рассмотрении")
    expect(anna.get_by_test_id("withdraw-balance")).to_contain_text(
        rubles(after_game["anna"] - WITHDRAW_RUB * 100)
    )
    screenshot(anna, "cashier-withdraw-pending-desktop")
    asked = expect_balance(anna, live_url, "withdrawal asked", "anna", log)
    assert asked == after_game["anna"] - WITHDRAW_RUB * 100
    assert Account.objects.get(kind=Account.Kind.PENDING_PAYOUTS).balance == WITHDRAW_RUB * 100

    # 4. A staff member with the approve_withdrawal permission approves it in the admin.
    cashier = create_player(nickname="kassir", is_staff=True)
    cashier.user_permissions.add(Permission.objects.get(codename="approve_withdrawal"))
    staff = browser.new_context(viewport=DESKTOP, locale="ru-RU").new_page()
    # The admin's login is the site's, then the authenticator app's code.
    staff.goto(f"{live_url}/admin/login/")
    staff.fill("input[name=login]", cashier.email)
    staff.fill("input[name=password]", PASSWORD)
    staff.locator("main form button[type=submit]").first.click()
    staff.fill("input[name=code]", totp_code())
    staff.locator("main form button[type=submit]").first.click()
    expect(staff).to_have_url(re.compile(r"^http://[^/?]+/admin/$"))
    staff.goto(f"{live_url}/admin/wallet/withdrawal/?status__exact=pending")
    screenshot(staff, "cashier-admin-queue-desktop")
    staff.get_by_role("link", name="одобрить или отклонить").click()
    expect(staff.get_by_test_id("withdrawal-amount")).to_contain_text(rubles(WITHDRAW_RUB * 100))
    staff.fill("input[name=payout_reference]", "SBP-000123")
    screenshot(staff, "cashier-admin-decide-desktop")
    staff.get_by_test_id("approve").click()
    expect(staff.locator(".messagelist")).to_contain_text("выплачен")
    withdrawal = Withdrawal.objects.get()
    assert (withdrawal.status, withdrawal.decided_by_id) == (Withdrawal.Status.APPROVED, cashier.pk)
    assert Account.objects.get(kind=Account.Kind.PENDING_PAYOUTS).balance == 0

    anna.goto(f"{live_url}/wallet/withdraw/")
    expect(anna.get_by_test_id("withdrawal-status")).to_have_text("выплачен")
    screenshot(anna, "cashier-withdraw-paid-desktop")
    assert expect_balance(anna, live_url, "withdrawal paid out", "anna", log) == asked
    screenshot(anna, "cashier-wallet-desktop")

    # The other cashier pages on the phone.
    boris.goto(f"{live_url}/wallet/withdraw/")
    screenshot(boris, "cashier-withdraw-phone")
    boris.goto(f"{live_url}/wallet/limits/")
    screenshot(boris, "cashier-limits-phone")
    anna.goto(f"{live_url}/wallet/limits/")
    screenshot(anna, "cashier-limits-desktop")
    print("\n".join(["balances at each step:", *log]))
