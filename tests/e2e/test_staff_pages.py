"""Staff pages in real Chromium at 1280 px: the operations report and its chart, the entries."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game
from tests.players import create_player, session_cookie
from wallet import services as wallet_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

DESKTOP = {"width": 1280, "height": 900}
STAKE = 100_00


def two_games_and_some_cash(play_out):
    """A staff member; two finished games, five deposits, a withdrawal and a staff credit."""
    staff = create_player(nickname="boss")
    staff.is_staff = staff.is_superuser = True
    staff.save()
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
    header = staff_page.locator("#result_list thead th")
    expect(header.last).to_be_visible()
    for cell in header.all():
        box = cell.bounding_box()
        assert box and box["x"] + box["width"] <= DESKTOP["width"], cell.inner_text()
    titles = staff_page.locator("#changelist-filter summary").all_inner_texts()
    assert len(titles) == len(set(titles)), titles
    screenshot(staff_page, "staff-entries-1280")
