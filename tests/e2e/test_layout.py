"""Layout and language in real Chromium: a full table on a phone, every page in both languages."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.engine import Game as EngineGame
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
    menu = page.locator("#table-menu")
    if menu.count() and menu.is_visible():  # a phone's table folds the header into its menu
        menu.click()
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
    public = ["/", "/rules/", "/leaderboard/", "/tournaments/", "/accounts/login/"]
    public += ["/accounts/signup/"]
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
    private += ["/accounts/password/change/", "/rules/", "/tournaments/", "/", "/friends/"]
    private += [f"/players/{guest.username}/"]
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


# Phones are emulated as phones (touch, a mobile viewport, a dense screen); desktops as windows.
PHONES = {
    "phone-360x640": {"width": 360, "height": 640, "scale": 2},
    "phone-360x740": {"width": 360, "height": 740, "scale": 2},
    "phone-390x844": {"width": 390, "height": 844, "scale": 3},
    "phone-740x360": {"width": 740, "height": 360, "scale": 2},
}
DESKTOPS = {
    "desktop-1280x720": {"width": 1280, "height": 720},
    "desktop-1366x768": {"width": 1366, "height": 768},
    "desktop-1920x1080": {"width": 1920, "height": 1080},
}
MIN_CARD_TAP_PX = 44
NAME_CHARS = 12


def screen_context(browser, screen: str):
    if screen in PHONES:
        size = PHONES[screen]
        return browser.new_context(
            viewport={"width": size["width"], "height": size["height"]},
            device_scale_factor=size["scale"],
            is_mobile=True,
            has_touch=True,
            locale="ru-RU",
        )
    return browser.new_context(viewport=DESKTOPS[screen], locale="ru-RU")


def open_screen(browser, live_url: str, user, screen: str, path: str) -> Page:
    page = log_in_context(screen_context(browser, screen), live_url, user)
    page.goto(f"{live_url}{path}")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    return page


# Viewport-relative boxes of the regions the player needs, and what the page scrolls.
TABLE_BOXES = """() => {
  const box = (node) => {
    if (!node) return null;
    const b = node.getBoundingClientRect();
    return {x: b.x, y: b.y, right: b.right, bottom: b.bottom, width: b.width, height: b.height};
  };
  const hand = document.getElementById("hand");
  return {
    hand: box(hand),
    actions: box(document.getElementById("actions")),
    clock: box(document.getElementById("turn-clock")),
    seat: box(document.querySelector(".me > .seat")),
    board: box(document.querySelector(".board")),
    chat: box(document.getElementById("chat")),
    log: box(document.getElementById("log").closest("section")),
    layer: box(document.getElementById("result")),
    result: box(document.querySelector("#result .result")),
    cards: [...hand.querySelectorAll(".pcard")].map(box),
    handScrolls: hand.scrollWidth > hand.clientWidth + 1,
    scrollWidth: document.scrollingElement.scrollWidth,
    scrollHeight: document.scrollingElement.scrollHeight,
    clocks: [...document.querySelectorAll(".turn-clock.on, .me .seat .timer")].length,
  };
}"""


NODE_BOX = """node => {
  const b = node.getBoundingClientRect();
  return {x: b.x, y: b.y, right: b.right, bottom: b.bottom};
}"""


def inside(box: dict, width: int, height: int) -> bool:
    return (
        box["x"] >= -0.5
        and box["y"] >= -0.5
        and box["right"] <= width + 0.5
        and box["bottom"] <= height + 0.5
    )


def overlap(a: dict, b: dict) -> bool:
    return (
        min(a["right"], b["right"]) - max(a["x"], b["x"]) > 0.5
        and min(a["bottom"], b["bottom"]) - max(a["y"], b["y"]) > 0.5
    )


def check_table_fits(page: Page, screen: str, *, cards: int) -> dict:
    """The hand, the actions, the clock and the own plaque lie in the viewport, apart; the
    page scrolls neither way; every card is a tap target; one clock counts the own move."""
    size = PHONES.get(screen) or DESKTOPS[screen]
    width, height = size["width"], size["height"]
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(cards)
    found = page.evaluate(TABLE_BOXES)
    regions = {name: found[name] for name in ("hand", "actions", "clock", "seat")}
    for name, box in regions.items():
        assert box and box["width"] > 0 and box["height"] > 0, (screen, name, box)
        assert inside(box, width, height), (screen, name, box)
    names = list(regions)
    for first, a in enumerate(names):
        for b in names[first + 1 :]:
            assert not overlap(regions[a], regions[b]), (screen, a, regions[a], b, regions[b])
    assert found["scrollWidth"] <= width, (screen, found["scrollWidth"])
    assert found["scrollHeight"] <= height, (screen, found["scrollHeight"])
    hand = found["hand"]
    for card in found["cards"]:
        assert card["width"] >= MIN_CARD_TAP_PX, (screen, card)
        assert hand["y"] <= card["y"] and card["bottom"] <= hand["bottom"] + 0.5, (screen, card)
        if not found["handScrolls"]:
            assert hand["x"] <= card["x"] and card["right"] <= hand["right"] + 0.5, (screen, card)
    rows: dict[float, list[float]] = {}
    for card in found["cards"]:
        rows.setdefault(round(card["y"]), []).append(card["x"])
    for lefts in rows.values():
        lefts.sort()
        steps = [b - a for a, b in zip(lefts, lefts[1:], strict=False)]
        assert all(step >= MIN_CARD_TAP_PX - 1 for step in steps), (screen, steps)
    return found


def check_desktop_fits(found: dict, screen: str) -> None:
    """Board, chat and move log in one screen without scrolling."""
    size = DESKTOPS[screen]
    for name in ("board", "chat", "log"):
        assert inside(found[name], size["width"], size["height"]), (screen, name, found[name])


def check_names_show(page: Page, screen: str) -> None:
    """Every opponent's nickname shows its first twelve characters (all, when shorter)."""
    widths = page.locator(".opponents .seat .nick").evaluate_all(
        """(nicks, chars) => nicks.map(nick => {
            const range = document.createRange();
            const text = nick.firstChild;
            range.setStart(text, 0);
            range.setEnd(text, Math.min(chars, text.length));
            return [nick.textContent, range.getBoundingClientRect().width, nick.clientWidth];
        })""",
        NAME_CHARS,
    )
    assert widths
    for name, needed, shown in widths:
        assert needed <= shown + 0.5, (screen, name, needed, shown)


def check_away_notice_clears_the_hand(
    browser, live_url: str, page: Page, screen: str, game: Game, seat: int, other, screenshot
) -> None:
    """The away notice lies over the board, clear of the hand, the actions and the clock."""
    from games.models import Seat

    Seat.objects.filter(table_id=game.table_id, position=seat, left_at__isnull=True).update(
        away=True
    )
    # His own connection would end the mark: another player's brings the table the news.
    watcher = open_screen(browser, live_url, other, screen, f"/table/{game.table_id}/")
    notice = page.get_by_test_id("away-notice")
    expect(notice).to_be_visible()
    screenshot(page, f"fit-away-{screen}")
    box = notice.evaluate(NODE_BOX)
    found = page.evaluate(TABLE_BOXES)
    for name in ("hand", "actions", "clock"):
        assert not overlap(box, found[name]), (screen, name, box, found[name])
    page.get_by_test_id("back").click()
    expect(notice).to_be_hidden()
    watcher.context.close()


def check_large_cards_fit(page: Page, screen: str) -> None:
    """Large cards still leave the hand and the actions in view; the size goes back after."""
    for size in ("large", "medium"):
        page.get_by_test_id("settings-open").click()
        # Saved before the next page of the player reads it.
        with page.expect_response(lambda response: response.url.endswith("/settings/table/")):
            page.get_by_test_id("setting-card-size").select_option(size)
        page.get_by_test_id("settings-close").click()
        expect(page.locator("body")).to_have_attribute("data-card-size", size)
        found = check_table_fits(page, screen, cards=20)
        check_desktop_fits(found, screen)


def tap(page: Page, locator, screen: str) -> None:
    if screen in PHONES:
        locator.tap(position={"x": 12, "y": 14})
    else:
        locator.click(position={"x": 12, "y": 14})


def defend_twenty(game: Game, seat: int) -> None:
    """Rewrite a fresh six-seat deal: `seat` defends against one card holding twenty, the five
    other seats three each (no talon left)."""
    from django.utils import timezone

    state = game.state
    players = len(state["hands"])
    attacker = (seat - 1) % players
    deck = sorted(card for hand in state["hands"] for card in hand) + state["talon"]
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[seat] = deck[:20]
    rest = deck[20:]
    attack = rest.pop()
    for offset in range(1, players):
        other = (seat + offset) % players
        hands[other], rest = rest[:3], rest[3:]
    assert not rest
    state.update(
        hands=hands,
        talon=[],
        table=[{"attack": attack, "defense": None}],
        attacker=attacker,
        defender=seat,
        passed=[],
        taking=False,
        first_bout=False,
    )
    EngineGame.from_dict(state)  # the rewritten deal is a valid one
    Game.objects.filter(pk=game.pk).update(
        state=state, deadline=timezone.now() + timedelta(minutes=10)
    )


def test_the_table_fits_every_screen_from_the_deal_to_the_result(
    browser, live_url, screenshot, off_loop, play_out
):
    """Six seats, on four phones and three desktops: at the deal, mid-bout with twenty cards
    in hand, and on the result."""
    players = [funded_player(f"fitscreen{n}player".ljust(16, "q")) for n in range(6)]
    table = off_loop(services.table_create, user=players[0], stake=10_00, seats=6)
    for user in players[1:]:
        off_loop(services.table_join, table_id=table.pk, user=user)
    game = Game.objects.get(table=table)
    game.deadline = game.deadline + timedelta(minutes=10)
    game.save(update_fields=["deadline"])
    leader_seat = EngineGame.from_dict(game.state).attacker
    leader = next(user for user in players if user.pk == game.players[leader_seat])
    path = f"/table/{table.pk}/"

    # The deal: the leader's own hand, his actions and his one clock are in view at once.
    for screen in (*PHONES, *DESKTOPS):
        page = open_screen(browser, live_url, leader, screen, path)
        expect(page.get_by_test_id("turn-clock")).to_be_visible()
        expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
        screenshot(page, f"fit-deal-{screen}")
        found = check_table_fits(page, screen, cards=6)
        assert found["clocks"] == 1, screen
        card = page.locator("#hand .pcard.playable").first
        tap(page, card, screen)
        expect(card).to_have_class(re.compile(r"\bselected\b"))
        lifted = card.evaluate(NODE_BOX)
        for name in ("seat", "clock", "actions"):
            assert not overlap(lifted, found[name]), (screen, name, lifted, found[name])
        expect(page.get_by_test_id("play")).to_be_visible()
        if screen in DESKTOPS:
            check_desktop_fits(found, screen)
            check_names_show(page, screen)
        page.context.close()

    # Mid-bout: the defender holds twenty cards.
    defender = next(user for user in players if user.pk == game.players[(leader_seat + 1) % 6])
    defend_twenty(game, (leader_seat + 1) % 6)
    for screen in (*PHONES, *DESKTOPS):
        page = open_screen(browser, live_url, defender, screen, path)
        expect(page.get_by_test_id("take")).to_be_visible()
        expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(20)
        screenshot(page, f"fit-twenty-{screen}")
        found = check_table_fits(page, screen, cards=20)
        assert found["clocks"] == 1, screen
        if found["handScrolls"]:
            last = page.locator("#hand .pcard").last
            last.scroll_into_view_if_needed()
            box = last.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONES[screen]["width"], box
        if screen in DESKTOPS:
            check_desktop_fits(found, screen)
        if screen in ("phone-360x640", "desktop-1280x720"):
            check_away_notice_clears_the_hand(
                browser, live_url, page, screen, game, (leader_seat + 1) % 6, leader, screenshot
            )
        if screen == "desktop-1280x720":
            check_large_cards_fit(page, screen)
        page.context.close()

    # The result lies over the board, its «Сыграть ещё» in view.
    off_loop(play_out, Game.objects.get(pk=game.pk))
    for screen in (*PHONES, *DESKTOPS):
        page = open_screen(browser, live_url, defender, screen, path)
        expect(page.get_by_test_id("result")).to_be_visible()
        screenshot(page, f"fit-result-{screen}")
        found = page.evaluate(TABLE_BOXES)
        size = PHONES.get(screen) or DESKTOPS[screen]
        for name in ("hand", "actions", "clock", "layer"):
            assert inside(found[name], size["width"], size["height"]), (screen, name, found[name])
        for a, b in (("hand", "actions"), ("hand", "clock"), ("actions", "clock")):
            if found[a]["height"] and found[b]["height"]:
                assert not overlap(found[a], found[b]), (screen, a, b)
        board, layer, result = found["board"], found["layer"], found["result"]
        assert board["x"] <= layer["x"] and layer["right"] <= board["right"], (screen, layer)
        assert board["y"] <= layer["y"] and layer["bottom"] <= board["bottom"], (screen, layer)
        assert layer["x"] <= result["x"] and result["right"] <= layer["right"], (screen, result)
        assert found["scrollWidth"] <= size["width"], screen
        # A long result scrolls inside its layer: «Сыграть ещё» is always within reach.
        page.evaluate("() => document.querySelector('[data-testid=rematch]').scrollIntoView()")
        expect(page.get_by_test_id("rematch")).to_be_in_viewport(ratio=1)
        page.context.close()


def test_a_phone_table_folds_the_header_into_a_menu_and_the_chat_into_a_sheet(
    browser, live_url, screenshot, off_loop
):
    host, guest = funded_player("menuhost"), funded_player("menuguest")
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    screen = "phone-360x740"
    page = open_screen(browser, live_url, host, screen, f"/table/{table.pk}/")
    header = page.locator("#site-header")
    expect(header).to_be_hidden()
    menu = page.get_by_test_id("table-menu")
    expect(menu).to_have_attribute("aria-expanded", "false")
    menu.tap()
    expect(header).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_test_id("table-info")).to_contain_text("Ставка")
    controls = page.locator(
        ".site-header a:not([hidden]), .site-header button, .site-header select"
    )
    shown = [box for box in boxes(controls) if box["width"]]  # hidden forms stay folded
    assert len(shown) >= 8
    for control in shown:
        assert control["height"] >= MIN_TAP_PX, control
    screenshot(page, f"fit-menu-{screen}")
    page.keyboard.press("Escape")
    expect(header).to_be_hidden()

    chat = page.get_by_test_id("chat")
    expect(chat).not_to_have_attribute("open", "")
    chat.locator("summary").first.tap()
    expect(chat).to_have_attribute("open", "")
    chat.evaluate("node => Promise.all(node.getAnimations().map(slide => slide.finished))")
    sheet = chat.bounding_box()
    assert sheet["y"] > 0 and abs(sheet["y"] + sheet["height"] - 740) < 1, sheet
    expect(page.get_by_test_id("chat-input")).to_be_visible()
    screenshot(page, f"fit-chat-{screen}")
    page.context.close()


def test_practice_bots_names_show_in_full_and_the_pages_fit_a_phone(
    browser, live_url, screenshot, off_loop
):
    player = funded_player("practicefit")
    table = off_loop(services.practice_start, user=player, players=4, level="novice")
    for screen in DESKTOPS:
        page = open_screen(browser, live_url, player, screen, f"/table/{table.pk}/")
        nicks = page.locator(".opponents .seat .nick")
        expect(nicks).to_have_count(3)
        for name in nicks.all_text_contents():
            assert name.startswith("Новичок"), name
        assert nicks.evaluate_all("ns => ns.every(n => n.scrollWidth <= n.clientWidth)"), screen
        check_names_show(page, screen)
        page.context.close()

    context = screen_context(browser, "phone-360x640")
    page = log_in_context(context, live_url, player)
    for name, path in (
        ("home", "/"),
        ("lobby", "/lobby/"),
        ("profile", "/profile/"),
        ("wallet", "/wallet/"),
        ("rules", "/rules/"),
    ):
        page.goto(f"{live_url}{path}")
        scroll_width = page.evaluate("document.scrollingElement.scrollWidth")
        assert scroll_width <= 360, (path, scroll_width)
        screenshot(page, f"fit-page-{name}-phone-360x640")
    context.close()
