"""Whole games in real browsers: sign up, fund, create and join tables, play to the end."""

from __future__ import annotations

import random
import re
import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from games.models import Game, Table
from tests.players import PASSWORD
from wallet.selectors import user_balance
from wallet.services import deposit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}

FUNDS = 1000_00
ADULT_BIRTH_DATE = "1990-05-17"
STAKE_RUB = 100
# The lobby has several forms with a stake; these tests open a table with the create form.
CREATE_FORM = "[data-testid=create-table]"
MOVE_TIMEOUT_S = 10
# Longest wait for the next move before a game counts as stuck.
GAME_STALL_S = 45


def sign_up(
    browser, live_url: str, nickname: str, viewport=DESKTOP, locale="ru-RU", funds: int = FUNDS
) -> Page:
    """A new browser context goes through the real sign-up form; the player is then funded
    with ``funds`` (none when 0)."""
    context = browser.new_context(viewport=viewport, locale=locale)
    context.set_default_timeout(MOVE_TIMEOUT_S * 1000)
    page = context.new_page()
    page.goto(f"{live_url}/accounts/signup/")
    page.fill("input[name=email]", f"{nickname}@example.com")
    page.fill("input[name=username]", nickname)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.fill("input[name=date_of_birth]", ADULT_BIRTH_DATE)
    page.locator("form button[type=submit]").last.click()
    expect(page.get_by_test_id("nickname")).to_have_text(nickname)
    if not funds:
        return page
    user = get_user_model().objects.get(username=nickname)
    deposit(
        user=user,
        amount=funds,
        idempotency_key=f"e2e:{nickname}",
        initiated_by=None,
        memo="e2e",
    )
    return page


def state_of(page: Page) -> dict:
    return page.evaluate("() => window.durakTable.state")


def wait_for_version_above(page: Page, version: int) -> None:
    page.wait_for_function(
        "v => window.durakTable.state.version > v && !window.durakTable.inFlight", arg=version
    )


def hand_card(page: Page, code: str):
    return page.locator(f"#hand .pcard[data-card='{code}']")


# Where a finger lands on a hand card: its top-left corner, the part an overlapping
# neighbour (to the right, or in the row below) never covers.
CARD_CORNER = {"x": 12, "y": 14}


def tap_card(page: Page, code: str) -> None:
    hand_card(page, code).click(position=CARD_CORNER)


def drag_to(page: Page, source, target) -> None:
    """Drag with pointer events (mouse down, several moves, up) as a finger or mouse would."""
    box = source.bounding_box()
    goal = target.bounding_box()
    start_x, start_y = box["x"] + CARD_CORNER["x"], box["y"] + CARD_CORNER["y"]
    page.mouse.move(start_x, start_y)
    page.mouse.down()
    for step in range(1, 6):
        page.mouse.move(
            start_x + (goal["x"] + goal["width"] / 2 - start_x) * step / 5,
            start_y + (goal["y"] + goal["height"] / 2 - start_y) * step / 5,
        )
    page.mouse.up()


def play_one_move(page: Page, state: dict, rng: random.Random, stats: dict) -> None:
    """Pick a move among the ones the page offers and make it with clicks (or a drag)."""
    view = state["view"]
    legal = view["legal_actions"]
    kinds = {action["type"] for action in legal}
    playfield = page.get_by_test_id("playfield")
    defends = [action for action in legal if action["type"] == "defend"]
    transfers = [action for action in legal if action["type"] == "transfer"]
    attacks = [action for action in legal if action["type"] == "attack"]
    for action in legal:
        for card in action.get("cards", []) + [action.get("card")]:
            if card:
                expect(hand_card(page, card)).to_have_class(re.compile(r"\bplayable\b"))
    if transfers and rng.random() < 0.5:
        tap_card(page, transfers[0]["cards"][0])
        page.get_by_test_id("play").click()
        stats["transfer"] += 1
    elif defends and (rng.random() < 0.8 or "take" not in kinds):
        move = rng.choice(defends)
        tap_card(page, move["card"])
        target = page.locator(f"#playfield .pcard.attack[data-card='{move['attack']}']")
        expect(target).to_have_class(re.compile(r"\btarget\b"))
        if stats["drag"] == 0:
            drag_to(page, hand_card(page, move["card"]), target)
            stats["drag"] += 1
        else:
            target.click()
        stats["defend"] += 1
    elif "take" in kinds:
        # A double click sends one move: the button is disabled while the move is in flight.
        page.get_by_test_id("take").dblclick()
        stats["take"] += 1
    elif attacks and not view["table"]:
        lead = (
            max(attacks, key=lambda action: len(action["cards"]))
            if rng.random() < 0.3
            else (attacks[0])
        )
        for card in lead["cards"]:
            tap_card(page, card)
        playfield.click(position={"x": 8, "y": 8})
        stats["lead"] += 1
    elif attacks and (rng.random() < 0.4 or "pass" not in kinds):
        tap_card(page, rng.choice(attacks)["cards"][0])
        playfield.click(position={"x": 8, "y": 8})
        stats["throw"] += 1
    else:
        page.get_by_test_id("pass").click()
        stats["pass"] += 1


def play_to_end(
    pages: list[Page],
    rng: random.Random,
    checkpoints: dict | None = None,
    timeout_s: float = GAME_STALL_S,
) -> dict:
    """Everyone plays by clicking until every page shows the result.

    ``checkpoints`` maps a move count to a check run after that many moves, with the page
    that made the move. It fails once ``timeout_s`` pass without a move: a slow machine makes
    a game long, a stuck one makes it stop.
    """
    checkpoints = checkpoints or {}
    stats = dict.fromkeys(["lead", "throw", "defend", "transfer", "take", "pass", "drag"], 0)
    moves = 0
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        states = [state_of(page) for page in pages]
        if all(state["result"] for state in states):
            stats["moves"] = moves
            return stats
        newest = max(state["version"] for state in states)
        for page, state in zip(pages, states, strict=True):
            view = state["view"]
            if state["version"] != newest or not view or view["finished"]:
                continue
            if state["you"] in view["waiting_for"] and view["legal_actions"]:
                play_one_move(page, state, rng, stats)
                wait_for_version_above(page, state["version"])
                expect(page.locator("#toast.error")).to_be_hidden()
                moves += 1
                deadline = time.monotonic() + timeout_s
                if moves in checkpoints:
                    checkpoints[moves](page)
                break
        else:
            time.sleep(0.05)
    raise AssertionError(f"the game stopped after {moves} moves")


def check_reload_restores(page: Page) -> None:
    before = state_of(page)
    hand = sorted(before["view"]["hand"])
    page.reload()
    expect(page.get_by_test_id("board")).to_be_visible()
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    after = state_of(page)
    assert after["version"] >= before["version"]
    if after["version"] == before["version"]:
        shown = sorted(
            page.locator("#hand .pcard").evaluate_all("cards => cards.map(c => c.dataset.card)")
        )
        assert shown == hand


def check_connection_loss_and_resync(daphne_server, pages: list[Page]) -> None:
    """The server goes away: a banner says so; it comes back: the board resyncs by itself."""
    # Every page has the latest move before the server goes (the mover's own page had it first).
    latest = max(state_of(page)["version"] for page in pages)
    for page in pages:
        wait_for_version_above(page, latest - 1)
    versions = [state_of(page)["version"] for page in pages]
    daphne_server.stop()
    for page in pages:
        expect(page.get_by_test_id("conn-banner")).to_be_visible()
        expect(page.get_by_test_id("conn-banner")).to_contain_text("Нет связи")
    daphne_server.start()
    for page, version in zip(pages, versions, strict=True):
        expect(page.get_by_test_id("conn-banner")).to_be_hidden(timeout=30_000)
        page.wait_for_function("() => window.durakTable.connected")
        assert state_of(page)["version"] == version


def test_two_players_lobby_join_play_to_the_end_and_rematch(
    browser, daphne_server, live_url, screenshot
):
    anna = sign_up(browser, live_url, "anna")
    boris = sign_up(browser, live_url, "boris")

    anna.goto(f"{live_url}/lobby/")
    expect(anna.get_by_test_id("balance")).to_contain_text("1 000,00")
    anna.fill(CREATE_FORM + " input[name=stake]", str(STAKE_RUB))
    anna.select_option(CREATE_FORM + " select[name=seats]", "2")
    anna.get_by_test_id("create-submit").click()
    expect(anna).to_have_url(re.compile(r"/table/\d+/$"))
    table_id = int(anna.url.rstrip("/").rsplit("/", 1)[1])
    table = Table.objects.get(pk=table_id)
    assert table.stake == STAKE_RUB * 100 and table.seat_count == 2
    expect(anna.locator(".waiting-box")).to_contain_text("1/2")
    expect(anna.get_by_test_id("balance")).to_contain_text("900,00")

    boris.goto(f"{live_url}/lobby/")
    tile = boris.locator(f"[data-table-id='{table_id}']")
    expect(tile).to_contain_text("anna")
    screenshot(boris, "lobby-desktop")
    tile.get_by_test_id("join").click()
    expect(boris).to_have_url(re.compile(rf"/table/{table_id}/$"))
    expect(boris.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    expect(anna.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    expect(anna.get_by_test_id("seed-hash")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    screenshot(anna, "board-desktop")

    stats = play_to_end(
        [anna, boris],
        random.Random(2),
        checkpoints={
            3: lambda page: screenshot(page, "board-desktop-play"),
            5: check_reload_restores,
            9: lambda page: check_connection_loss_and_resync(daphne_server, [anna, boris]),
        },
    )
    assert stats["defend"] and stats["lead"] and stats["drag"]

    game = Game.objects.get(table_id=table_id)
    assert game.status == Game.Status.FINISHED
    for page in (anna, boris):
        expect(page.get_by_test_id("result")).to_be_visible()
        expect(page.get_by_test_id("seed")).to_have_text(game.seed)
    screenshot(anna, "result-desktop")
    balances = {
        name: user_balance(user=get_user_model().objects.get(username=name))
        for name in ("anna", "boris")
    }
    assert sum(balances.values()) == 2 * FUNDS
    assert sorted(balances.values()) in ([FUNDS - 100_00, FUNDS + 100_00], [FUNDS, FUNDS])
    for name, page in (("anna", anna), ("boris", boris)):
        expected = f"{balances[name] // 100:,}".replace(",", " ") + ",00"
        expect(page.get_by_test_id("balance")).to_contain_text(expected)

    anna.get_by_test_id("rematch").click()
    expect(boris.get_by_test_id("rematch-info")).to_contain_text("anna")
    boris.get_by_test_id("rematch").click()
    expect(boris.get_by_test_id("result")).to_be_hidden()
    expect(anna.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    assert Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING).count() == 1


def test_four_players_private_table_by_invitation_on_desktop_and_phone(
    browser, live_url, screenshot
):
    host = sign_up(browser, live_url, "vera")
    phone = sign_up(browser, live_url, "gleb", viewport=PHONE)
    others = [
        sign_up(browser, live_url, "dina"),
        sign_up(browser, live_url, "egor", locale="en-US"),
    ]

    phone.goto(f"{live_url}/")
    screenshot(phone, "home-phone")
    phone.goto(f"{live_url}/rules/")
    expect(phone.get_by_test_id("payout-table")).to_contain_text("60 %")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.goto(f"{live_url}/lobby/")
    expect(phone.get_by_test_id("create-table")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(phone, "lobby-phone")

    host.goto(f"{live_url}/lobby/")
    host.fill(CREATE_FORM + " input[name=stake]", "50.50")
    host.select_option(CREATE_FORM + " select[name=seats]", "4")
    host.check(CREATE_FORM + " input[name=private]")
    host.get_by_test_id("create-submit").click()
    expect(host).to_have_url(re.compile(r"/table/\d+/$"))
    table = Table.objects.get(pk=int(host.url.rstrip("/").rsplit("/", 1)[1]))
    assert table.private and table.stake == 50_50
    invite = host.get_by_test_id("invite-link")
    expect(invite).to_have_value(re.compile(rf"/table/{table.pk}/\?invite="))
    invite_url = invite.input_value()

    # A private table is not listed, and without the code its page does not exist.
    phone.goto(f"{live_url}/lobby/")
    expect(phone.locator(f"[data-table-id='{table.pk}']")).to_have_count(0)
    response = phone.goto(f"{live_url}/table/{table.pk}/")
    assert response.status == 404

    for page in [phone, *others]:
        page.goto(invite_url)
        page.get_by_test_id("join").click()
        expect(page).to_have_url(re.compile(rf"/table/{table.pk}/"))
    pages = [host, phone, *others]
    for page in pages:
        expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
        expect(page.locator(".seat[data-testid=seat]")).to_have_count(3)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(phone, "board-phone")

    stats = play_to_end(
        pages, random.Random(4), checkpoints={6: lambda page: screenshot(phone, "board-phone-play")}
    )
    assert stats["moves"] > 10

    game = Game.objects.get(table=table)
    assert game.status == Game.Status.FINISHED
    payouts = {row.user.username: row.amount for row in game.distribution.select_related("user")}
    assert sum(payouts.values()) == 4 * 50_50
    for name, page in zip(("vera", "gleb", "dina", "egor"), pages, strict=True):
        expect(page.get_by_test_id("result")).to_contain_text(name)
        user = get_user_model().objects.get(username=name)
        assert user_balance(user=user) == FUNDS - 50_50 + payouts[name]
    screenshot(phone, "result-phone")
    expect(others[1].get_by_test_id("result")).to_contain_text("Game over")
    expect(others[1].get_by_test_id("result-headline")).to_contain_text(
        re.compile(r"is the durak|A draw")
    )
    expect(phone.get_by_test_id("result-headline")).to_contain_text(re.compile(r"дурак|Ничья"))

    host.get_by_test_id("game-link").click()
    expect(host.get_by_test_id("game-result")).to_contain_text(game.seed)
    counter = host.get_by_test_id("replay-counter")
    # The replay's script has shown the deal: a click from now on is heard.
    expect(counter).to_have_text(re.compile(r"^\D*0\D"))
    host.get_by_test_id("replay-next").click()
    expect(counter).to_have_text(re.compile(r"^\D*1\D"))
    screenshot(host, "game-detail")
    host.goto(f"{live_url}/profile/")
    expect(host.get_by_test_id("games-played")).to_have_text("1")
    expect(host.get_by_test_id("history")).to_contain_text(f"Стол №{table.pk}, партия 1")
    screenshot(host, "profile")
