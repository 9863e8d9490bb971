"""Staff pages in real Chromium at 1280 px: the operations report and its chart, the entries,
the fair-play signals."""

from __future__ import annotations

from dataclasses import replace

import pytest
from playwright.sync_api import expect

from durak_site.web.client_source import Client
from games import services
from games.models import Game
from tests.fairplay_patterns import finish_game, ordinary_play, play_with_sleeper
from tests.players import create_player, create_staff, session_cookie
from wallet import services as wallet_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

DESKTOP = {"width": 1280, "height": 900}
STAKE = 100_00


def two_games_and_some_cash(play_out):
    """A staff member; two finished games, five deposits, a withdrawal and a staff credit."""
    staff = create_staff(nickname="boss")
    for seats in (2, 3):
        users = [create_player(balance=1000_00) for _ in range(seats)]
        table = services.table_create(user=users[0], stake=STAKE, seats=seats)
        for user in users[1:]:
            services.table_join(table_id=table.pk, user=user)
        play_out(Game.objects.get(table=table))
    wallet_services.withdrawal_hold(user=users[0], amount=250_00, idempotency_key="w:1")
    wallet_services.withdrawal_pay(
        amount=250_00, idempotency_key="w:1:pay", initiated_by=None, memo=""
    )
    wallet_services.staff_adjust(
        user=users[1], amount=50_00, reason="Goodwill", staff_user=staff, idempotency_key="a:1"
    )
    return staff


@pytest.fixture
def staff_page(browser, live_url, play_out, off_loop):
    staff = off_loop(two_games_and_some_cash, play_out)
    context = browser.new_context(viewport=DESKTOP, locale="ru-RU")
    name, value = session_cookie(staff).split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": live_url}])
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def test_operations_report_draws_its_chart_without_outside_scripts(
    staff_page, live_url, screenshot
):
    requests: list[str] = []
    staff_page.on("request", lambda request: requests.append(request.url))
    staff_page.goto(f"{live_url}/admin/games/game/operations/")
    expect(staff_page.locator("h1")).to_have_text("Операционный отчёт")
    chart = staff_page.locator(".ops-chart svg")
    expect(chart).to_be_visible()
    assert staff_page.locator(".ops-chart polyline").count() == 4
    box = chart.bounding_box()
    assert box and box["width"] > 400 and box["height"] > 100
    total = staff_page.locator("#operations tfoot tr")
    expect(total).to_contain_text("Итого")
    expect(total).to_contain_text("5 000,00 ₽")  # five players deposited 1 000 ₽ each
    assert all(url.startswith(live_url) for url in requests), requests
    screenshot(staff_page, "staff-operations-report")


def test_entries_list_fits_1280_pixels(staff_page, live_url, screenshot):
    staff_page.goto(f"{live_url}/admin/wallet/entry/")
    expect(staff_page.locator("#result_list thead th").last).to_be_visible()
    screenshot(staff_page, "staff-entries-1280")
    # The list sits in a box that clips what does not fit (and scrolls it sideways): every
    # column must end inside that box, and the box inside the window, with nothing to scroll.
    fit = staff_page.evaluate(
        """() => {
            const results = document.querySelector('#changelist .results');
            const box = results.getBoundingClientRect();
            const cells = [...document.querySelectorAll('#result_list tr > *')];
            return {
                boxRight: box.right,
                scrollWidth: results.scrollWidth,
                clientWidth: results.clientWidth,
                pageWidth: document.documentElement.scrollWidth,
                rights: cells.map(cell => [cell.innerText, cell.getBoundingClientRect().right]),
            };
        }"""
    )
    assert fit["boxRight"] <= DESKTOP["width"]
    assert fit["pageWidth"] <= DESKTOP["width"]
    assert fit["scrollWidth"] <= fit["clientWidth"], fit["scrollWidth"]
    for text, right in fit["rights"]:
        assert right <= fit["boxRight"] + 0.5, (text, right, fit["boxRight"])
    assert len(fit["rights"]) > 6 * 10  # the header and every entry's six columns
    titles = staff_page.locator("#changelist-filter summary").all_inner_texts()
    assert len(titles) == len(set(titles)), titles


def fair_play_patterns() -> None:
    """Random play among eight players, plus a pair that keeps meeting, two players at one
    table from one address, and a player the server keeps playing for."""
    players = [create_player(balance=10_000_00, nickname=f"igrok{n}") for n in range(8)]
    ordinary_play(players, games=30, seed=11)
    anna = create_player(balance=10_000_00, nickname="anna")
    boris = create_player(balance=10_000_00, nickname="boris")
    for _ in range(8):
        finish_game([anna, boris], order=[1, 0])
    home = Client(address="192.0.2.7", browser_id="c" * 22, user_agent_hash="a" * 16)
    finish_game(players[:2], clients=[home, replace(home, browser_id="d" * 22)])
    sleeper = create_player(balance=10_000_00, nickname="sonya")
    for opponent in players[2:5]:
        play_with_sleeper(sleeper, opponent, sleeper)
    for first, second in [(5, 6), (6, 7), (5, 7)]:
        play_with_sleeper(players[first], players[second])


def test_fair_play_page_shows_each_signal_with_its_games(
    staff_page, live_url, off_loop, screenshot
):
    off_loop(fair_play_patterns)
    staff_page.goto(f"{live_url}/admin/games/game/fair-play/")
    expect(staff_page.locator("h1")).to_have_text("Сигналы честной игры")
    pair = staff_page.get_by_test_id("fp-pair")
    expect(pair).to_have_count(1)
    expect(pair).to_contain_text("boris")
    expect(pair.get_by_test_id("fp-flow")).to_contain_text("boris получает 800,00 ₽ за счёт")
    expect(pair.get_by_test_id("fp-replay")).to_have_count(8)
    expect(staff_page.get_by_test_id("fp-client")).to_have_count(1)
    expect(staff_page.get_by_test_id("fp-client")).to_contain_text("192.0.2.7")
    expect(staff_page.get_by_test_id("fp-away-player")).to_have_count(1)
    expect(staff_page.get_by_test_id("fp-away-player")).to_contain_text("sonya")
    expect(staff_page.get_by_test_id("fp-block-form")).to_have_count(5)
    screenshot(staff_page, "staff-fair-play")
    assert staff_page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]

    replay = pair.get_by_test_id("fp-replay").first
    replay.click()
    expect(staff_page.locator("body")).to_contain_text("anna")
