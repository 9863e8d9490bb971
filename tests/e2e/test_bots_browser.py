"""Practice against bots, quick play and the rating, in real browsers."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from games.models import Game, Table
from tests.e2e.test_browser import FUNDS, PHONE, play_to_end, sign_up, state_of
from wallet.models import Account
from wallet.selectors import user_balance

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

PRACTICE_TIMEOUT_S = 400


def test_a_practice_game_against_three_bots_played_to_the_end_by_clicks_on_a_phone(
    browser, live_url, celery_worker, screenshot
):
    page = sign_up(browser, live_url, "pasha", viewport=PHONE)
    page.goto(f"{live_url}/lobby/")
    practice = page.get_by_test_id("practice")
    practice.locator("select[name=seats]").select_option("4")
    practice.locator("select[name=level]").select_option("novice")
    practice.get_by_test_id("practice-submit").click()
    expect(page).to_have_url(re.compile(r"/table/\d+/$"))
    # A phone's table folds the header (with the table's title) into its menu: the top bar
    # says it is practice.
    expect(page.get_by_test_id("practice-bar-mark")).to_be_visible()
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    table = Table.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert table.practice and table.bot_level == "novice"
    screenshot(page, "practice-phone")

    # The hint: on the player's turn it selects the Любитель's cards or names the move.
    page.wait_for_function(
        "() => { const s = window.durakTable.state; "
        "return s.view && s.view.waiting_for.includes(s.you) && !window.durakTable.inFlight; }",
        timeout=30_000,
    )
    page.get_by_test_id("hint").click()
    expect(page.locator("#toast")).to_contain_text("Подсказка")
    if page.get_by_test_id("cancel").count():
        page.get_by_test_id("cancel").click()

    # Most moves are the bots': each waits for a Celery worker, slow on a busy machine.
    stats = play_to_end([page], random.Random(5), timeout_s=PRACTICE_TIMEOUT_S)
    assert stats["moves"] > 0
    expect(page.get_by_test_id("result")).to_be_visible()
    screenshot(page, "practice-phone-result")
    expect(page.get_by_test_id("rematch-info")).to_have_count(0)  # no rematch in practice
    game = Game.objects.get(table=table)
    assert game.status == Game.Status.FINISHED and state_of(page)["result"]["places"]
    user = get_user_model().objects.get(username="pasha")
    assert user_balance(user=user) == FUNDS
    assert not Account.objects.filter(table_id=table.pk).exists()  # no table bank, no entry
    page.goto(f"{live_url}/profile/")
    expect(page.get_by_test_id("practice-history")).to_contain_text(f"Стол №{table.pk}, партия 1")


def test_quick_play_seats_two_browsers_at_one_table_and_the_profile_shows_the_rating(
    browser, live_url, off_loop, play_out
):
    pages = [sign_up(browser, live_url, name) for name in ("roma", "sasha")]
    for page in pages:
        page.goto(f"{live_url}/")
        form = page.get_by_test_id("home-quick-play")
        form.locator("input[name=stake]").fill("100")
        form.locator("select[name=seats]").select_option("2")
        form.get_by_test_id("home-quick-play-submit").click()
        expect(page).to_have_url(re.compile(r"/table/\d+/$"))
    assert pages[0].url == pages[1].url
    for page in pages:
        expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    game = Game.objects.get(table_id=int(pages[0].url.rstrip("/").rsplit("/", 1)[1]))
    off_loop(play_out, game)
    for page in pages:
        page.reload()  # the game was finished by the test, not through the server's sockets
        expect(page.get_by_test_id("result")).to_be_visible()
        expect(page.get_by_test_id("seat-rating").first).to_have_text(re.compile(r"^-?\d+$"))
    pages[0].goto(f"{live_url}/profile/")
    expect(pages[0].get_by_test_id("rating")).to_have_text(re.compile(r"^-?\d+$"))
