"""Playing without a mouse or without sight, in real Chromium: a whole practice game by keyboard
alone with the moves and prompts read from the live region, and an axe-core audit of the lobby,
table, wallet, result and watch pages."""

from __future__ import annotations

import random
import re
import time
from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import Page, expect

from games import services
from games.models import Game
from tests.e2e.test_browser import state_of, wait_for_version_above
from tests.e2e.test_layout import DESKTOP, PHONE, funded_player, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

KEYBOARD_GAME_STALL_S = 120
# A sentence of the live region telling another player's move.
BOT_MOVE = re.compile(r"ходит:|подкидывает:|отбивается:|переводит:|берёт|: пас|: бито")
# axe-core (pinned, shipped by axe-playwright-python): the violations that fail a page.
BLOCKING_IMPACTS = {"serious", "critical"}
MY_TURN = """() => {
  const table = window.durakTable, state = table.state, view = state.view;
  return Boolean(state.result) || (!table.inFlight && Boolean(view)
    && view.waiting_for.includes(state.you) && view.legal_actions.length > 0);
}"""


def blocking_violations(page: Page, name: str) -> list[str]:
    """The serious and critical axe-core violations on the page as it is now, in words."""
    results = Axe().run(page)
    return [
        f"{name}: {violation['id']} ({violation['impact']}): {violation['help']} — "
        + ", ".join(str(node["target"]) for node in violation["nodes"][:5])
        for violation in results.response["violations"]
        if violation["impact"] in BLOCKING_IMPACTS
    ]


def focused_card(page: Page) -> str | None:
    return page.evaluate("() => document.activeElement?.dataset?.card ?? null")


def focus_card(page: Page, group_key: str, selector: str, code: str) -> None:
    """Jump to a group of cards with its key, then walk to `code` with the arrows."""
    page.keyboard.press(group_key)
    page.keyboard.press("Home")
    codes = page.locator(selector).evaluate_all("cards => cards.map(card => card.dataset.card)")
    for _ in range(codes.index(code)):
        page.keyboard.press("ArrowRight")
    assert focused_card(page) == code


def select_cards(page: Page, cards: list[str]) -> None:
    for card in cards:
        focus_card(page, "h", "#hand .pcard[data-card]", card)
        page.keyboard.press("Space")
        expect(page.locator(f"#hand .pcard[data-card='{card}']")).to_have_attribute(
            "aria-pressed", "true"
        )


def key_move(page: Page, view: dict, rng: random.Random, stats: dict) -> None:
    """Pick a legal move and make it with keys only."""
    legal = view["legal_actions"]
    kinds = {action["type"] for action in legal}
    by_kind = {kind: [a for a in legal if a["type"] == kind] for kind in kinds}
    if "transfer" in kinds and rng.random() < 0.5:
        if rng.random() < 0.5:
            select_cards(page, by_kind["transfer"][0]["cards"])
        page.keyboard.press("r")  # with nothing selected, a card that can transfer
        stats["transfer"] += 1
    elif "defend" in kinds and (rng.random() < 0.8 or "take" not in kinds):
        move = rng.choice(by_kind["defend"])
        select_cards(page, [move["card"]])
        focus_card(page, "a", "#playfield .pcard.attack", move["attack"])
        page.keyboard.press("Enter")
        stats["defend"] += 1
    elif "take" in kinds:
        page.keyboard.press("t")
        stats["take"] += 1
    elif "attack" in kinds and (not view["table"] or "pass" not in kinds or rng.random() < 0.4):
        select_cards(page, rng.choice(by_kind["attack"])["cards"])
        page.keyboard.press("p")
        stats["attack"] += 1
    else:
        page.keyboard.press("d")
        stats["pass"] += 1


# Every sentence added to the live region from now on, as a screen reader is handed them.
LISTEN = """() => {
  window.heard = [];
  new MutationObserver((records) => records.forEach((record) => record.addedNodes.forEach(
    (node) => window.heard.push(node.textContent)))).observe(
    document.querySelector("[data-testid=announcer]"), { childList: true });
}"""


def test_a_practice_game_played_by_keyboard_alone_with_moves_and_prompts_spoken(
    browser, live_url, celery_worker, screenshot
):
    player = funded_player("klava")
    page = log_in(browser, live_url, player, DESKTOP)
    page.goto(f"{live_url}/lobby/")
    practice = page.get_by_test_id("practice")
    practice.locator("select[name=seats]").select_option("2")
    practice.locator("select[name=level]").select_option("novice")
    practice.get_by_test_id("practice-submit").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/table/\d+/$"))
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    page.evaluate(LISTEN)

    # «?» opens the list of keys, Escape closes it.
    page.keyboard.press("?")
    help_dialog = page.get_by_test_id("keys-dialog")
    expect(help_dialog).to_be_visible()
    expect(help_dialog).to_contain_text("T / Е")
    expect(help_dialog).to_contain_text("Взять")
    screenshot(page, "keyboard-help")
    page.keyboard.press("Escape")
    expect(help_dialog).to_be_hidden()
    # The board in words holds the own hand.
    expect(page.get_by_test_id("board-text")).to_contain_text("Ваши карты")

    rng = random.Random(11)
    stats = dict.fromkeys(["transfer", "defend", "take", "attack", "pass"], 0)
    deadline = time.monotonic() + KEYBOARD_GAME_STALL_S
    while time.monotonic() < deadline:
        page.wait_for_function(MY_TURN, timeout=KEYBOARD_GAME_STALL_S * 1000)
        state = state_of(page)
        if state["result"]:
            break
        key_move(page, state["view"], rng, stats)
        wait_for_version_above(page, state["version"])
        expect(page.locator("#toast.error")).to_be_hidden()
        deadline = time.monotonic() + KEYBOARD_GAME_STALL_S
    else:
        raise AssertionError(f"the game stopped after {sum(stats.values())} moves: {stats}")

    expect(page.get_by_test_id("result")).to_be_visible()
    heard = page.evaluate("window.heard")
    # The result is told once the game is over: the headline the page shows, and the own place.
    headline = page.get_by_test_id("result-headline").inner_text()
    assert [line for line in heard if line.startswith(headline)] == [heard[-1]], heard
    assert "Ваше место" in heard[-1]
    assert stats["attack"] and stats["defend"] + stats["take"], stats
    bot_moves = [line for line in heard if BOT_MOVE.search(line)]
    assert bot_moves, heard
    assert any(line.startswith("Ваш ход") for line in heard), heard
    assert Game.objects.get(table_id=state["table"]["id"]).status == Game.Status.FINISHED
    screenshot(page, "keyboard-game-result")
    assert not blocking_violations(page, "the table with the result")


def test_the_lobby_table_wallet_result_and_watch_pages_pass_an_axe_audit(
    browser, live_url, off_loop, play_out, screenshot
):
    anna, boris, vera = (funded_player(name) for name in ("anna", "boris", "vera"))
    # Yesterday's game, finished: its result page, and the home page's replay.
    table = off_loop(services.table_create, user=vera, stake=100_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=boris)
    finished = off_loop(play_out, Game.objects.get(table=table))
    yesterday = timezone.localtime() - timedelta(days=1)
    Game.objects.filter(pk=finished.pk).update(finished_at=yesterday)
    # A game being played now: the table page and the watch page.
    live = off_loop(services.table_create, user=anna, stake=50_00, seats=2)
    off_loop(services.table_join, table_id=live.pk, user=boris)

    page = log_in(browser, live_url, anna, DESKTOP)
    found = []
    for path, ready in (
        ("/lobby/", "quick-play"),
        (f"/table/{live.pk}/", "hand"),
        ("/wallet/", "wallet-balance"),
        (f"/game/{finished.pk}/", "replay"),
        ("/watch/", "watch-table"),
        ("/", "best-game"),
    ):
        page.goto(f"{live_url}{path}")
        expect(page.get_by_test_id(ready).first).to_be_visible()
        found += blocking_violations(page, path)
    assert not found, "\n".join(found)

    page.goto(f"{live_url}/watch/")
    expect(page.get_by_test_id("watch-table")).to_have_count(1)
    expect(page.get_by_test_id("watch-link")).to_have_attribute("href", f"/table/{live.pk}/")
    expect(page.get_by_test_id("best-game")).to_contain_text("vera")
    screenshot(page, "watch-desktop")
    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.get_by_test_id("replay-counter")).to_contain_text("0")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "watch-phone")
