"""The live table's behaviour in real Chromium beyond whole games: drags, updates, layout."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from games import services
from games.engine import Game as EngineGame
from games.models import Game
from tests.e2e.test_layout import DESKTOP, PHONE, funded_player, log_in, log_in_context
from wallet.selectors import user_balance

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def started_game(off_loop, names: tuple[str, str]):
    """A two-seat table whose game has started; returns (table, leader, other)."""
    host, guest = (funded_player(name) for name in names)
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    game = Game.objects.get(table=table)
    leader_id = game.players[EngineGame.from_dict(game.state).attacker]
    leader, other = (host, guest) if host.pk == leader_id else (guest, host)
    return table, leader, other


def open_table(
    browser, live_url: str, user, table_id: int, viewport=DESKTOP, locale="ru-RU"
) -> Page:
    page = log_in(browser, live_url, user, viewport, locale)
    page.goto(f"{live_url}/table/{table_id}/")
    # The socket's first state, sent on connect, has arrived: none is due that would redraw
    # the page under the test.
    page.wait_for_function("() => window.durakTable && window.durakTable.statesReceived > 0")
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    # Positions are compared later: measure only once the page's fonts have loaded.
    page.evaluate("() => document.fonts.ready.then(() => true)")
    return page


def test_a_state_arriving_mid_drag_cancels_the_drag_cleanly(browser, live_url, off_loop):
    table, leader, other = started_game(off_loop, ("dragger", "dragwatcher"))
    page = open_table(browser, live_url, leader, table.pk)
    version = page.evaluate("() => window.durakTable.state.version")
    card = page.locator("#hand .pcard.playable").first
    box = card.bounding_box()
    field = page.get_by_test_id("playfield").bounding_box()
    page.mouse.move(box["x"] + 12, box["y"] + 14)
    page.mouse.down()
    page.mouse.move(box["x"] + 12, box["y"] - 40, steps=4)
    expect(page.locator(".drag-ghost")).to_have_count(1)
    expect(page.locator("#hand .pcard.dragging")).to_have_count(1)

    # The other player opens the table: the server sends everyone a new state mid-drag.
    log_in(browser, live_url, other, DESKTOP).goto(f"{live_url}/table/{table.pk}/")
    expect(page.locator(".drag-ghost")).to_have_count(0)
    expect(page.locator("#hand .pcard.dragging")).to_have_count(0)
    expect(page.locator(".drop-hover")).to_have_count(0)

    # Releasing the cancelled drag over the table plays nothing.
    page.mouse.move(field["x"] + field["width"] / 2, field["y"] + field["height"] / 2, steps=3)
    page.mouse.up()
    assert page.evaluate("() => window.durakTable.inFlight") is False
    expect(page.locator(".drag-ghost")).to_have_count(0)

    # A fresh drag works as before.
    card = page.locator("#hand .pcard.playable").first
    played = card.get_attribute("data-card")
    box = card.bounding_box()
    page.mouse.move(box["x"] + 12, box["y"] + 14)
    page.mouse.down()
    page.mouse.move(field["x"] + field["width"] / 2, field["y"] + field["height"] / 2, steps=5)
    page.mouse.up()
    page.wait_for_function(
        "v => window.durakTable.state.version > v && !window.durakTable.inFlight", arg=version
    )
    expect(page.locator(f"#playfield .pcard.attack[data-card='{played}']")).to_have_count(1)
    assert page.evaluate("() => window.durakTable.state.version") == version + 1
    expect(page.locator(".drag-ghost")).to_have_count(0)


def lead(page: Page) -> None:
    """The leader puts his first playable card on the table with two taps."""
    page.locator("#hand .pcard.playable").first.click(position={"x": 12, "y": 14})
    page.get_by_test_id("playfield").click(position={"x": 8, "y": 8})


def in_header(page: Page, test_id: str):
    """A control of the site header: a phone's table folds the header into its menu."""
    menu = page.get_by_test_id("table-menu")
    if menu.is_visible() and menu.get_attribute("aria-expanded") != "true":
        menu.click()
    return page.get_by_test_id(test_id)


def wait_for_version(page: Page, version: int) -> None:
    page.wait_for_function("v => window.durakTable.state.version >= v", arg=version)


def box_of(page: Page, selector: str) -> dict:
    """Where an element sits on the board: its offset from the board's top left corner."""
    return page.locator(selector).evaluate(
        """node => {
            const b = node.getBoundingClientRect();
            const board = document.querySelector(".board").getBoundingClientRect();
            return {x: b.x - board.x, y: b.y - board.y};
        }"""
    )


# Each table test runs on a desktop and on a phone, in Russian and in English.
EVERY_SCREEN = pytest.mark.parametrize(
    ("viewport", "locale"),
    [(DESKTOP, "ru-RU"), (DESKTOP, "en-US"), (PHONE, "ru-RU"), (PHONE, "en-US")],
    ids=["desktop-ru", "desktop-en", "phone-ru", "phone-en"],
)
TEXT = {
    "ru-RU": {
        "your_move": "Ваш ход!",
        "settings": "Настройки стола",
        "notify": "Ваш ход за столом в дурака",
        "out": "вышел",
        "first_place": "1 место",
        "away": "Раньше, чем выйдет ваше время, сервер за вас никогда не ходит",
        "done": ("бито", "{name}: бито"),
        "pass": ("пас", "{name}: пас"),
        "refunded": "Ваша ставка вернулась в кошелёк",
    },
    "en-US": {
        "your_move": "Your move!",
        "settings": "Table settings",
        "notify": "Your move at the durak table",
        "out": "out",
        "first_place": "place 1",
        "away": "The server never moves for you before your time is up",
        "done": ("done", "{name}: beaten off"),
        "pass": ("pass", "{name} passes"),
        "refunded": "Your stake is back in your wallet",
    },
}


def shot(screenshot, page: Page, name: str, viewport, locale: str) -> None:
    """A screenshot named by what it shows, the screen and the language."""
    screen = "phone" if viewport is PHONE else "desktop"
    screenshot(page, f"{name}-{screen}-{locale[:2]}")


def both_pages(browser, live_url, off_loop, prefix: str, viewport, locale):
    """A started two-seat game with both players' pages open: (game, leader's, other's)."""
    suffix = f"{locale[:2]}{viewport['width']}"
    table, leader, other = started_game(off_loop, (f"{prefix}a{suffix}", f"{prefix}b{suffix}"))
    page = open_table(browser, live_url, leader, table.pk, viewport, locale)
    watcher = open_table(browser, live_url, other, table.pk, viewport, locale)
    return Game.objects.get(table=table), page, watcher


@EVERY_SCREEN
def test_a_turn_change_moves_nothing_and_the_title_calls_the_waited_player(
    browser, live_url, off_loop, screenshot, viewport, locale
):
    your_move = TEXT[locale]["your_move"]
    game, page, watcher = both_pages(browser, live_url, off_loop, "turn", viewport, locale)
    base_title = watcher.title()
    # The leader is waited for: his title and icon say so, the big countdown shows by his hand.
    expect(page).to_have_title(re.compile(rf"^{re.escape(your_move)} — "))
    assert page.locator("#favicon").get_attribute("href").endswith("favicon-turn.svg")
    expect(page.get_by_test_id("turn-clock")).to_be_visible()
    expect(page.get_by_test_id("turn-clock")).to_contain_text(re.compile(r"\d"))
    expect(watcher.get_by_test_id("turn-clock")).to_be_hidden()
    assert not watcher.title().startswith(your_move)
    hand_before = box_of(page, "#hand")
    field_before = box_of(page, "#playfield")
    watcher_hand = box_of(watcher, "#hand")

    lead(page)
    for each in (page, watcher):
        wait_for_version(each, game.version + 1)
    expect(page.locator(".seat.counting[data-testid=seat]")).to_have_count(1)
    expect(page).to_have_title(base_title)
    expect(watcher).to_have_title(re.compile(rf"^{re.escape(your_move)} — "))
    expect(page.get_by_test_id("turn-clock")).to_be_hidden()
    assert box_of(page, "#hand") == hand_before
    assert box_of(page, "#playfield") == field_before
    assert box_of(watcher, "#hand") == watcher_hand
    shot(screenshot, watcher, "board-turn-clock", viewport, locale)

    watcher.get_by_test_id("take").click()
    for each in (page, watcher):
        wait_for_version(each, game.version + 2)
    assert box_of(page, "#hand")["y"] == hand_before["y"]
    assert box_of(watcher, "#hand")["y"] == watcher_hand["y"]


CARD_TOPS_OVER_FRAMES = """([code, frames]) => new Promise(done => {
  const card = document.querySelector(`#hand .pcard[data-card='${code}']`);
  const tops = [];
  const sample = () => {
    tops.push(card.getBoundingClientRect().top);
    if (tops.length < frames) requestAnimationFrame(sample); else done(tops);
  };
  requestAnimationFrame(sample);
})"""


def test_a_card_under_a_resting_pointer_holds_still_lifted_or_selected(browser, live_url, off_loop):
    table, leader, _ = started_game(off_loop, ("rester", "restwatch"))
    page = open_table(browser, live_url, leader, table.pk)
    card = page.locator("#hand .pcard.playable").first
    code = card.get_attribute("data-card")
    rest = card.bounding_box()
    # The pointer rests on the card's lower edge while the countdowns tick (each tick lays the
    # page out again): the lifted card must not rise off the pointer, drop, and rise again.
    page.mouse.move(rest["x"] + 20, rest["y"] + rest["height"] - 2)
    tops = page.evaluate(CARD_TOPS_OVER_FRAMES, [code, 60])
    assert set(tops[20:]) == {rest["y"] - 6}, tops

    # Selected, it stands higher than a merely pointed-at card, pointer on it or not.
    card.click(position={"x": 12, "y": 14})
    expect(card).to_have_class(re.compile(r"\bselected\b"))
    tops = page.evaluate(CARD_TOPS_OVER_FRAMES, [code, 30])
    assert set(tops[15:]) == {rest["y"] - 18}, tops


def hand_codes(page: Page) -> list[str]:
    return page.locator("#hand .pcard").evaluate_all("cards => cards.map(c => c.dataset.card)")


def first_card_width(page: Page) -> float:
    return page.locator("#hand .pcard").first.evaluate("n => n.getBoundingClientRect().width")


def by_suit(codes: list[str], trump: str) -> list[str]:
    return sorted(codes, key=lambda c: (c[1] == trump, "SCDH".index(c[1]), "6789TJQKA".index(c[0])))


@EVERY_SCREEN
def test_settings_persist_across_reloads_and_shape_the_table(
    browser, live_url, off_loop, screenshot, viewport, locale
):
    _game, page, watcher = both_pages(browser, live_url, off_loop, "tidy", viewport, locale)
    card_width = first_card_width(page)
    in_header(page, "settings-open").click()
    dialog = page.get_by_test_id("settings-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(TEXT[locale]["settings"])
    page.get_by_test_id("setting-hand-order").select_option("suit")
    page.get_by_test_id("setting-card-size").select_option("large")
    page.get_by_test_id("setting-confirm-take").check()
    shot(screenshot, page, "settings", viewport, locale)
    page.get_by_test_id("settings-close").click()
    # Saved before the reload: a reload cuts off a save still on its way.
    with page.expect_response(lambda response: response.url.endswith("/settings/table/")):
        in_header(page, "sound-toggle").click()
    expect(page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "false")

    page.reload()
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    trump = page.evaluate("() => window.durakTable.state.view.trump_suit")
    codes = hand_codes(page)
    assert codes == by_suit(codes, trump)
    page.wait_for_function(
        "w => document.querySelector('#hand .pcard').getBoundingClientRect().width > w",
        arg=card_width,
    )
    expect(page.get_by_test_id("sound-toggle")).to_have_attribute("aria-pressed", "false")
    in_header(page, "settings-open").click()
    expect(page.get_by_test_id("setting-hand-order")).to_have_value("suit")
    expect(page.get_by_test_id("setting-confirm-take")).to_be_checked()
    page.get_by_test_id("settings-close").click()

    # Sound muted: moves play nothing here, while the other player (sound on) hears them.
    version = page.evaluate("() => window.durakTable.state.version")
    lead(page)
    wait_for_version(watcher, version + 1)
    page.wait_for_function("v => window.durakTable.state.version > v", arg=version)
    assert page.evaluate("() => window.durakTable.sounds") == []
    assert watcher.evaluate("() => window.durakTable.sounds")[-1] == "turn"

    # «Take» asks once more where the taker's settings say so (the watcher's do not).
    in_header(watcher, "settings-open").click()
    watcher.get_by_test_id("setting-confirm-take").check()
    watcher.get_by_test_id("settings-close").click()
    take = watcher.get_by_test_id("take")
    take.click()
    expect(take).to_have_class(re.compile(r"\barmed\b"))
    assert watcher.evaluate("() => window.durakTable.state.version") == version + 1
    assert watcher.evaluate("() => window.durakTable.inFlight") is False
    take.click()
    wait_for_version(watcher, version + 2)
    assert watcher.evaluate("() => window.durakTable.sounds")[-1] == "take"


NOTIFICATIONS_SPY = """
window.__notes = [];
window.Notification = class {
    static permission = "granted";
    static requestPermission() { return Promise.resolve("granted"); }
    constructor(title, options) { window.__notes.push(title); }
};
Object.defineProperty(document, "hidden", { get: () => Boolean(window.__hidden) });
"""


@EVERY_SCREEN
def test_a_hidden_tab_gets_a_notification_of_the_turn_when_opted_in(
    browser, live_url, off_loop, viewport, locale
):
    suffix = f"{locale[:2]}{viewport['width']}"
    table, leader, other = started_game(off_loop, (f"noisy{suffix}", f"sleepy{suffix}"))
    page = open_table(browser, live_url, leader, table.pk, viewport, locale)
    watcher_context = browser.new_context(viewport=viewport, locale=locale)
    watcher_context.add_init_script(NOTIFICATIONS_SPY)
    watcher = log_in_context(watcher_context, live_url, other)
    watcher.goto(f"{live_url}/table/{table.pk}/")
    watcher.wait_for_function("() => window.durakTable && window.durakTable.connected")
    in_header(watcher, "settings-open").click()
    watcher.get_by_test_id("setting-notifications").check()
    expect(watcher.get_by_test_id("setting-notifications")).to_be_checked()
    watcher.get_by_test_id("settings-close").click()
    watcher.evaluate("() => { window.__hidden = true; }")

    version = page.evaluate("() => window.durakTable.state.version")
    lead(page)
    wait_for_version(watcher, version + 1)
    assert watcher.evaluate("() => window.__notes") == [TEXT[locale]["notify"]]
    watcher.reload()
    in_header(watcher, "settings-open").click()
    expect(watcher.get_by_test_id("setting-notifications")).to_be_checked()


def play_until(off_loop, game: Game, users: dict, done) -> EngineGame:
    """Let the heuristic bot play every seat until `done(engine)`; the game is still on."""
    from games.engine.bots import choose_action

    engine = EngineGame.from_dict(game.state)
    while not done(engine):
        seat = engine.waiting_for[0]
        off_loop(
            services.game_apply_action,
            game_id=game.pk,
            user=users[game.players[seat]],
            action=choose_action(engine, seat),
            expected_version=game.version,
        )
        game.refresh_from_db()
        engine = EngineGame.from_dict(game.state)
    assert game.status == Game.Status.PLAYING
    return engine


@EVERY_SCREEN
def test_a_seat_that_went_out_shows_its_place_and_the_icon_is_served(
    browser, live_url, off_loop, viewport, locale
):
    suffix = f"{locale[:2]}{viewport['width']}"
    # Four seats: the first to go out leaves a game still on (with three, both others could
    # finish in the same bout).
    names = ("quickout", "slowtwo", "slowthree", "slowfour")
    players = [funded_player(f"{name}{suffix}") for name in names]
    table = off_loop(services.table_create, user=players[0], stake=10_00, seats=4)
    for user in players[1:]:
        off_loop(services.table_join, table_id=table.pk, user=user)
    game = Game.objects.get(table=table)
    users = {user.pk: user for user in players}
    engine = play_until(off_loop, game, users, lambda engine: engine.view(None)["out"])
    gone = engine.view(None)["out"][0]
    watcher = next(uid for seat, uid in enumerate(game.players) if seat != gone)
    page = log_in(browser, live_url, users[watcher], viewport, locale)
    page.goto(f"{live_url}/table/{table.pk}/")
    plaque = page.locator(f".seat[data-seat='{gone}']")
    expect(plaque).to_contain_text(TEXT[locale]["out"])
    expect(plaque.locator(".place")).to_have_text(TEXT[locale]["first_place"])
    expect(plaque.locator(".count")).to_have_count(0)

    icon = page.request.get(f"{live_url}/favicon.ico")
    assert icon.ok and icon.headers["content-type"].startswith("image/svg")
    linked = page.locator("link[rel=icon]").get_attribute("href")
    assert page.request.get(f"{live_url}{linked}").ok


@EVERY_SCREEN
def test_the_replay_page_shows_the_whole_result_table_at_1280(
    browser, live_url, off_loop, play_out, screenshot, viewport, locale
):
    suffix = f"{locale[:2]}{viewport['width']}"
    host = funded_player(f"averylongnick{suffix}")
    guest = funded_player(f"anotherlongnk{suffix}")
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    game = off_loop(play_out, Game.objects.get(table=table))
    page = log_in(browser, live_url, host, viewport, locale)
    page.goto(f"{live_url}/game/{game.pk}/")
    result = page.get_by_test_id("game-result")
    expect(result).to_contain_text(game.seed)
    shot(screenshot, page, "game-detail", viewport, locale)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    scroller = result.locator(".table-scroll")
    assert scroller.evaluate("node => node.scrollWidth <= node.clientWidth")
    heights = result.locator("tbody td").evaluate_all(
        "cells => cells.map(cell => cell.getBoundingClientRect().height)"
    )
    assert max(heights) - min(heights) < 2, heights  # no nickname wraps onto a second line


@EVERY_SCREEN
def test_the_discard_pile_counts_and_lists_every_card_beaten_off(
    browser, live_url, off_loop, screenshot, viewport, locale
):
    suffix = f"{locale[:2]}{viewport['width']}"
    host, guest = funded_player(f"pile{suffix}"), funded_player(f"heap{suffix}")
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    game = Game.objects.get(table=table)
    users = {host.pk: host, guest.pk: guest}
    engine = play_until(
        off_loop, game, users, lambda engine: engine.view(None)["discard_size"] >= 4
    )
    discard = engine.view(None)["discard"]
    page = log_in(browser, live_url, host, viewport, locale)
    page.goto(f"{live_url}/table/{table.pk}/")
    pile = page.get_by_test_id("discard")
    expect(pile).to_contain_text(str(len(discard)))
    expect(pile).to_contain_text("Бито" if locale == "ru-RU" else "Beaten off")
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    pile.click()
    listed = page.get_by_test_id("discard-list").locator(".pcard")
    expect(listed).to_have_count(len(discard))
    assert sorted(listed.evaluate_all("cards => cards.map(c => c.dataset.card)")) == sorted(discard)
    shot(screenshot, page, "discard", viewport, locale)


@EVERY_SCREEN
def test_cards_fly_briefly_and_a_state_mid_flight_leaves_the_board_right(
    browser, live_url, off_loop, viewport, locale
):
    game, page, watcher = both_pages(browser, live_url, off_loop, "fly", viewport, locale)
    # Slow the page's animations fifty-fold, so that the next state surely lands mid-flight.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 0.02})
    lead(page)
    wait_for_version(page, game.version + 1)
    assert page.evaluate("() => window.durakTable.flights") >= 1
    assert page.evaluate("() => document.getAnimations().length") >= 1

    wait_for_version(watcher, game.version + 1)
    watcher.get_by_test_id("take").click()
    wait_for_version(page, game.version + 2)
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})
    page.wait_for_function("() => document.getAnimations().length === 0")
    expect(page.locator(".flying")).to_have_count(0)
    table = page.evaluate("() => window.durakTable.state.view.table")
    shown = page.locator("#playfield .pcard").evaluate_all(
        "cards => cards.map(c => [c.dataset.card, getComputedStyle(c).transform])"
    )
    assert sorted(code for code, _ in shown) == sorted(
        card for pair in table for card in (pair["attack"], pair["defense"]) if card
    )
    assert all(transform in ("none", "matrix(1, 0, 0, 1, 0, 0)") for _, transform in shown)


@EVERY_SCREEN
def test_a_reduced_motion_context_shows_no_animation(browser, live_url, off_loop, viewport, locale):
    suffix = f"{locale[:2]}{viewport['width']}"
    table, leader, other = started_game(off_loop, (f"calmlead{suffix}", f"calmother{suffix}"))
    context = browser.new_context(viewport=viewport, locale=locale, reduced_motion="reduce")
    page = log_in_context(context, live_url, leader)
    page.goto(f"{live_url}/table/{table.pk}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    watcher = open_table(browser, live_url, other, table.pk, viewport, locale)
    version = page.evaluate("() => window.durakTable.state.version")
    lead(page)
    wait_for_version(watcher, version + 1)
    watcher.get_by_test_id("take").click()
    wait_for_version(page, version + 2)
    assert page.evaluate("() => window.durakTable.flights") == 0
    assert page.evaluate("() => document.getAnimations().length") == 0
    assert watcher.evaluate("() => window.durakTable.flights") >= 1


@EVERY_SCREEN
def test_an_away_player_reads_why_and_comes_back_with_one_button(
    browser, live_url, off_loop, viewport, locale
):
    from games.models import Seat

    game, page, watcher = both_pages(browser, live_url, off_loop, "away", viewport, locale)
    position = EngineGame.from_dict(game.state).attacker  # the seat of the leader's page
    seat = Seat.objects.get(table_id=game.table_id, position=position, left_at__isnull=True)
    # Marked away while connected (as after two timeouts), quietly: the other player's
    # reconnection brings the table the news.
    Seat.objects.filter(pk=seat.pk).update(away=True)
    watcher.reload()
    watcher.wait_for_function("() => window.durakTable && window.durakTable.connected")
    badge = watcher.locator(f".seat[data-seat='{position}'] .role.away")
    expect(badge).to_have_count(1)
    notice = page.get_by_test_id("away-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(TEXT[locale]["away"])
    expect(watcher.get_by_test_id("away-notice")).to_be_hidden()
    page.get_by_test_id("back").click()
    expect(notice).to_be_hidden()
    expect(badge).to_have_count(0)
    seat.refresh_from_db()
    assert not seat.away


@EVERY_SCREEN
def test_the_log_says_the_word_the_player_pressed(browser, live_url, off_loop, viewport, locale):
    suffix = f"{locale[:2]}{viewport['width']}"
    host, guest = funded_player(f"wordhost{suffix}"), funded_player(f"wordguest{suffix}")
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    game = Game.objects.get(table=table)
    users = {host.pk: host, guest.pk: guest}

    def leader_may_pass(engine) -> bool:
        leader = engine.attacker
        return leader in engine.waiting_for and {"type": "pass"} in engine.legal_actions(leader)

    engine = play_until(off_loop, game, users, leader_may_pass)
    leader = users[game.players[engine.attacker]]
    page = log_in(browser, live_url, leader, viewport, locale)
    page.goto(f"{live_url}/table/{table.pk}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    button = page.get_by_test_id("pass")
    word, logged = TEXT[locale]["pass" if engine.view(None)["taking"] else "done"]
    assert button.inner_text().strip().lower() == word
    button.click()
    wait_for_version(page, game.version + 1)
    expect(page.get_by_test_id("log").locator("li").first).to_have_text(
        logged.format(name=leader.username)
    )


@EVERY_SCREEN
def test_a_click_on_a_player_opens_his_card_with_his_figures(
    browser, live_url, off_loop, play_out, screenshot, viewport, locale
):
    from games.selectors import stats

    suffix = f"{locale[:2]}{viewport['width']}"
    host, guest = funded_player(f"card.host{suffix}"), funded_player(f"cardguest{suffix}")
    first = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=first.pk, user=guest)
    off_loop(play_out, Game.objects.get(table=first))
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    summary = stats.player_summary(user=guest, viewer=host)
    assert summary["games"] == 1

    page = open_table(browser, live_url, host, table.pk, viewport, locale)
    expect(page.locator("[data-testid=my-seat] .avatar")).to_have_text("CH")
    page.locator(".seat[data-testid=seat]").first.click()
    card = page.get_by_test_id("player-card")
    expect(card).to_be_visible()
    expect(card).to_contain_text(guest.username)
    expect(page.get_by_test_id("card-games")).to_have_text("1")
    expect(page.get_by_test_id("card-wins")).to_have_text(str(summary["wins"]))
    expect(page.get_by_test_id("card-durak")).to_have_text(str(summary["durak"]))
    # The first game had stakes, so it rated the guest.
    rating = stats.player_rating_now(user=guest)
    assert rating is not None
    expect(page.get_by_test_id("card-rating")).to_have_text(str(rating))
    shot(screenshot, page, "player-card", viewport, locale)


def finished_table_page(browser, live_url, off_loop, play_out, prefix: str, viewport, locale):
    """A two-seat game played to its end; (table, game, leader, other, leader's page)."""
    suffix = f"{locale[:2]}{viewport['width']}"
    table, leader, other = started_game(off_loop, (f"{prefix}a{suffix}", f"{prefix}b{suffix}"))
    game = off_loop(play_out, Game.objects.get(table=table))
    page = log_in(browser, live_url, leader, viewport, locale)
    page.goto(f"{live_url}/table/{table.pk}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    return table, game, leader, other, page


@EVERY_SCREEN
def test_a_started_rematch_shows_the_new_hand(
    browser, live_url, off_loop, play_out, viewport, locale
):
    table, game, leader, other, page = finished_table_page(
        browser, live_url, off_loop, play_out, "again", viewport, locale
    )
    other_page = log_in(browser, live_url, other, viewport, locale)
    other_page.goto(f"{live_url}/table/{table.pk}/")
    page.evaluate("() => { window.keptPage = true; }")
    page.get_by_test_id("rematch").click()
    # Confirmed over the socket: the page stays, and says who agreed.
    expect(page.get_by_test_id("rematch-info")).to_contain_text(leader.username)
    expect(page.get_by_test_id("rematch")).to_be_disabled()
    assert page.evaluate("() => window.keptPage === true")

    other_page.get_by_test_id("rematch").click()
    # The new game reaches the first player's page over its socket, the new hand in view.
    hand = page.get_by_test_id("hand").locator(".pcard")
    expect(hand).to_have_count(6)
    for card in hand.all():
        expect(card).to_be_in_viewport(ratio=1)


@EVERY_SCREEN
def test_a_lapsed_rematch_tells_who_agreed_that_his_stake_came_back(
    browser, live_url, off_loop, play_out, celery_worker, viewport, locale
):
    table, game, leader, _other, page = finished_table_page(
        browser, live_url, off_loop, play_out, "lapse", viewport, locale
    )
    page.get_by_test_id("rematch").click()
    expect(page.get_by_test_id("rematch-info")).to_contain_text(leader.username)
    held = off_loop(user_balance, user=leader)

    # The window ends now: the page says so by the server's word, and the server's sweep
    # gives the held stake back within a few seconds.
    lapsed = timezone.now() - timedelta(seconds=1)
    off_loop(Game.objects.filter(pk=game.pk).update, rematch_until=lapsed)
    expect(page.get_by_test_id("rematch-info")).to_contain_text(
        TEXT[locale]["refunded"], timeout=30_000
    )
    expect(page.get_by_test_id("rematch")).to_have_count(0)
    deadline = time.monotonic() + 30
    while off_loop(user_balance, user=leader) != held + table.stake:
        assert time.monotonic() < deadline, "the held stake did not come back"
        page.wait_for_timeout(100)
