"""Layout and language in real Chromium: a full table on a phone, every page in both languages."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.models import Game
from tests.players import PASSWORD, create_player, session_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 900}
MIN_TAP_PX = 40
CYRILLIC = re.compile(r"[А-Яа-яЁё]+")
RUSSIAN_CARD = re.compile(
    r"^(шестёрка|семёрка|восьмёрка|девятка|десятка|валет|дама|король|туз) (пик|треф|бубен|червей)$"
)
ENGLISH_CARD = re.compile(
    r"^(six|seven|eight|nine|ten|jack|queen|king|ace) of (spades|clubs|diamonds|hearts)$"
)


def funded_player(nickname: str):
    return create_player(balance=1000_00, nickname=nickname, verified_email=True)


def log_in(browser, live_url: str, user, viewport: dict, locale: str = "ru-RU") -> Page:
    return log_in_context(browser.new_context(viewport=viewport, locale=locale), live_url, user)


def log_in_context(context, live_url: str, user) -> Page:
    """A new page of the given browser context, logged in as `user` by a session cookie of
    his: most tests are not about the login form, and each pass through it costs a second and
    more (``log_in_through_form`` takes it)."""
    context.set_default_timeout(10_000)
    name, value = session_cookie(user).split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": live_url}])
    return context.new_page()


def log_in_through_form(browser, live_url: str, user, viewport: dict) -> Page:
    """Log `user` in through the login form, as a player does."""
    context = browser.new_context(viewport=viewport, locale="ru-RU")
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{live_url}/accounts/login/")
    page.fill("input[name=login]", user.email)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    expect(page.get_by_test_id("nickname")).to_have_text(user.username)
    return page


def page_width(page: Page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def boxes(locator) -> list[dict]:
    """Page-relative boxes of every match, read in one go (the board re-renders on updates)."""
    return locator.evaluate_all(
        """nodes => nodes.map(node => {
            const box = node.getBoundingClientRect();
            return {x: box.x + scrollX, y: box.y + scrollY, width: box.width, height: box.height};
        })"""
    )


def watch_policy(page: Page, blocked: list[str]) -> None:
    page.on(
        "console",
        lambda message: (
            blocked.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )


def switch_language(page: Page, code: str) -> None:
    with page.expect_navigation():
        page.select_option("select[name=language]", code)
    expect(page.locator("html")).to_have_attribute("lang", code)


def test_six_players_fit_a_phone_with_readable_cards_and_tap_targets(
    browser, live_url, screenshot, off_loop
):
    players = [funded_player(f"seat{n}player".ljust(24, "z")) for n in range(6)]
    table = off_loop(services.table_create, user=players[0], stake=10_00, seats=6)
    for user in players[1:]:
        off_loop(services.table_join, table_id=table.pk, user=user)
    assert Game.objects.filter(table=table, status=Game.Status.PLAYING).exists()

    page = log_in(browser, live_url, players[3], PHONE)
    page.goto(f"{live_url}/table/{table.pk}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    hand = page.get_by_test_id("hand").locator(".pcard")
    expect(hand).to_have_count(6)
    seats = page.locator(".seat[data-testid=seat]")
    expect(seats).to_have_count(5)
    screenshot(page, "board-phone-6")
    assert page_width(page) <= PHONE["width"]
    for box in boxes(seats) + boxes(hand):
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    # Every card of the own hand shows at least a tap target's width of itself.
    lefts = sorted(box["x"] for box in boxes(hand))
    assert all(b - a >= MIN_TAP_PX - 1 for a, b in zip(lefts, lefts[1:], strict=False)), lefts
    for label in hand.evaluate_all("cards => cards.map(c => c.getAttribute('aria-label'))"):
        assert RUSSIAN_CARD.match(label), label
    expect(page.get_by_test_id("table-info")).to_contain_text("Подкидывание")
    for control in boxes(
        page.locator(".site-header a:not([hidden]), .site-header button, .site-header select")
    ):
        assert control["height"] >= MIN_TAP_PX, control
    screenshot(page, "board-phone-6")

    switch_language(page, "en")
    expect(hand).to_have_count(6)
    for label in hand.evaluate_all("cards => cards.map(c => c.getAttribute('aria-label'))"):
        assert ENGLISH_CARD.match(label), label
    assert page_width(page) <= PHONE["width"]
    screenshot(page, "board-phone-6-en")

    switch_language(page, "ru")
    page.goto(f"{live_url}/wallet/")
    expect(page.get_by_test_id("wallet-balance")).to_contain_text("990,00")
    assert page_width(page) <= PHONE["width"]
    screenshot(page, "wallet-phone")


def visible_text(page: Page) -> str:
    return page.evaluate("document.body.innerText")


def test_every_page_speaks_one_language(browser, live_url, screenshot, play_out, off_loop):
    """Walk every page in English and in Russian: no word of the other language shows."""
    # Nicknames as long as they may be: they must still fit a phone's pages.
    host, guest = (
        funded_player("walkhost".ljust(24, "x")),
        funded_player("walkguest".ljust(24, "y")),
    )
    finished_table = off_loop(services.table_create, user=host, stake=5_00, seats=2)
    off_loop(services.table_join, table_id=finished_table.pk, user=guest)
    finished = off_loop(play_out, Game.objects.get(table=finished_table))
    playing_table = off_loop(services.table_create, user=host, stake=7_00, seats=2)
    off_loop(services.table_join, table_id=playing_table.pk, user=guest)

    visitor = browser.new_context(viewport=PHONE, locale="ru-RU").new_page()
    blocked: list[str] = []  # what the Content-Security-Policy refused, from the console
    watch_policy(visitor, blocked)
    visitor.goto(f"{live_url}/")
    switch_language(visitor, "en")
    public = ["/", "/rules/", "/leaderboard/", "/accounts/login/", "/accounts/signup/"]
    public += ["/accounts/password/reset/", f"/players/{host.username}/", f"/game/{finished.pk}/"]
    for path in public:
        visitor.goto(f"{live_url}{path}")
        assert not CYRILLIC.findall(visible_text(visitor)), (
            path,
            CYRILLIC.findall(visible_text(visitor)),
        )
        assert page_width(visitor) <= PHONE["width"], path

    page = log_in_through_form(browser, live_url, host, DESKTOP)
    watch_policy(page, blocked)
    private = ["/lobby/", "/wallet/", "/profile/", f"/table/{playing_table.pk}/"]
    private += [f"/table/{finished_table.pk}/", f"/game/{finished.pk}/", "/accounts/email/"]
    private += ["/accounts/password/change/", "/rules/", "/"]
    # Nicknames are data, and so are the avatar letters drawn from them.
    nicknames = {host.username, guest.username}
    latin_allowed = nicknames | {name[:2].upper() for name in nicknames} | {"SHA", "RU", "EN"}
    for path in private:
        page.goto(f"{live_url}{path}")
        # Addresses are data, and Russian writes "E-mail" in Latin letters too.
        text = re.sub(r"\S+@\S+|E-mail", "", visible_text(page))
        words = set(re.findall(r"[A-Za-z]{2,}", text))
        hex_words = {word for word in words if re.fullmatch(r"[0-9a-f]+", word)}
        assert not words - latin_allowed - hex_words, (path, words - latin_allowed - hex_words)
    page.goto(f"{live_url}/game/{finished.pk}/")
    screenshot(page, "game-detail-ru")

    switch_language(page, "en")
    for path in private:
        page.goto(f"{live_url}{path}")
        assert not CYRILLIC.findall(visible_text(page)), (
            path,
            CYRILLIC.findall(visible_text(page)),
        )
    page.goto(f"{live_url}/table/{finished_table.pk}/")
    expect(page.get_by_test_id("result")).to_contain_text("Game over")
    expect(page.get_by_test_id("table-info")).to_contain_text("₽5.00")
    screenshot(page, "result-desktop-en")
    page.goto(f"{live_url}/lobby/")
    screenshot(page, "lobby-desktop-en")
    assert not blocked


def test_the_log_labels_attacks_by_the_lead_mark_of_the_server(browser, live_url, off_loop):
    """A log cut by the cap may start inside a bout: its first attack there is a throw-in."""
    host, guest = funded_player("leadhost"), funded_player("leadguest")
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    page = log_in(browser, live_url, host, DESKTOP)
    page.goto(f"{live_url}/table/{table.pk}/")
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    lines = page.evaluate(
        """async () => {
            const script = document.querySelector('script[type=module][src*="table"]');
            const { describeEvent } = await import(new URL("events.js", script.src));
            const line = (lead) => describeEvent(
                { seat: 0, bout: 3, automatic: false, lead,
                  action: { type: "attack", cards: ["7S"] } },
                { nameOf: () => "anna" },
            ).textContent;
            return [line(true), line(false)];
        }"""
    )
    assert lines == ["anna ходит 7♠", "anna подкидывает 7♠"]
    page.context.close()


def test_a_tab_over_the_socket_cap_says_so_and_connects_once_a_tab_closes(
    browser, live_url, off_loop
):
    host, guest = funded_player("manytabs"), funded_player("manytabsguest")
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    first = log_in(browser, live_url, host, DESKTOP)
    first.goto(f"{live_url}/lobby/")
    # Other tabs of the same user: lobby sockets opened until the server refuses one.
    refused = first.evaluate(
        """async () => {
            window.tabs = [];
            for (let opened = 0; opened < 20; opened++) {
                const socket = new WebSocket(`ws://${location.host}/ws/lobby/`);
                const code = await new Promise((resolve) => {
                    socket.addEventListener("message", () => resolve(0), { once: true });
                    socket.addEventListener("close", (event) => resolve(event.code));
                });
                if (code) return code;
                window.tabs.push(socket);
            }
            return 0;
        }"""
    )
    assert refused == 4429
    second = first.context.new_page()
    second.goto(f"{live_url}/table/{table.pk}/")
    banner = second.get_by_test_id("conn-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("слишком много вкладок")
    first.evaluate("() => window.tabs.pop().close()")
    expect(banner).to_be_hidden(timeout=20_000)
    expect(second.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    first.context.close()
