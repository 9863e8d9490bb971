"""A play-money site in a real browser: sign-up with the date of birth, the free chips, a
practice game against a bot to its end, and no ruble sign on any page on the way."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from tests.e2e.conftest import BASE_DIR
from tests.e2e.test_browser import DESKTOP, PHONE, play_to_end, sign_up
from tests.servers import LiveServer
from wallet.selectors import user_balance

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

FLOOR = 500_00
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)
PRACTICE_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def chips_url(server_env: dict[str, str], tmp_path_factory) -> Iterator[str]:
    """A second Daphne, the play-money one: the shared server runs the money site."""
    documents = tmp_path_factory.mktemp("identity_documents")
    server = LiveServer(
        {
            **server_env,
            "PLAY_MONEY": "1",
            "PLAY_MONEY_DAILY_FLOOR": str(FLOOR),
            "IDENTITY_DOCUMENTS_DIR": str(documents),
        },
        BASE_DIR / "test-artifacts" / "daphne-play-money.log",
    )
    server.start()
    try:
        yield server.url
    finally:
        server.close()


def no_ruble(page: Page) -> None:
    """Neither the text shown nor anything in the page's HTML (the scripts' data) has ₽."""
    page.wait_for_load_state("load")
    assert "₽" not in page.inner_text("body"), page.url
    assert "₽" not in page.content(), page.url


def test_a_play_money_site_from_sign_up_to_a_finished_game_shows_chips_and_never_rubles(
    browser, chips_url, celery_worker, screenshot
):
    for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        signup = browser.new_context(viewport=viewport, locale="ru-RU").new_page()
        signup.goto(f"{chips_url}/accounts/signup/")
        no_ruble(signup)
        signup.fill("input[name=email]", f"young-{name}@example.com")
        signup.fill("input[name=username]", f"young-{name}")
        signup.fill("input[name=password1]", "Kozyr-tuz-42")
        signup.fill("input[name=password2]", "Kozyr-tuz-42")
        signup.fill("input[name=date_of_birth]", "2015-06-01")
        signup.locator("form button[type=submit]").last.click()
        expect(signup.get_by_text("только с 18 лет").first).to_be_visible()
        screenshot(signup, f"signup-under-18-{name}")
    assert not get_user_model().objects.filter(username__startswith="young-").exists()

    page = sign_up(browser, chips_url, "fishka", viewport=PHONE, funds=0)
    no_ruble(page)
    page.goto(f"{chips_url}/wallet/")
    no_ruble(page)
    expect(page.get_by_test_id("deposit-link")).to_have_count(0)
    page.get_by_test_id("top-up").click()
    expect(page.get_by_test_id("balance")).to_have_text("500 фишек")
    no_ruble(page)
    screenshot(page, "wallet-chips-phone")
    assert user_balance(user=get_user_model().objects.get(username="fishka")) == FLOOR
    assert page.goto(f"{chips_url}/wallet/deposit/").status == 404

    for path in ("/", "/rules/", "/leaderboard/", "/accounts/identity/"):
        page.goto(f"{chips_url}{path}")
        no_ruble(page)
    page.set_input_files(
        "input[name=file]",
        files=[{"name": "passport.png", "mimeType": "image/png", "buffer": PNG}],
    )
    page.get_by_test_id("identity-submit").click()
    expect(page.get_by_test_id("identity-status")).to_have_text("документы ждут проверки")
    expect(page.get_by_test_id("identity-documents").locator("li")).to_have_count(1)
    no_ruble(page)
    screenshot(page, "identity-phone")
    page.set_viewport_size(DESKTOP)
    screenshot(page, "identity-desktop")
    page.set_viewport_size(PHONE)

    page.goto(f"{chips_url}/lobby/")
    no_ruble(page)
    practice = page.get_by_test_id("practice")
    practice.locator("select[name=seats]").select_option("2")
    practice.locator("select[name=level]").select_option("novice")
    practice.get_by_test_id("practice-submit").click()
    expect(page).to_have_url(re.compile(r"/table/\d+/$"))
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    no_ruble(page)
    play_to_end([page], random.Random(40), timeout_s=PRACTICE_TIMEOUT_S)
    expect(page.get_by_test_id("result")).to_be_visible()
    no_ruble(page)
    page.goto(f"{chips_url}/profile/")
    no_ruble(page)
