"""Table options in real Chromium: each table found through the lobby's filter, its badges,
a 24-card podkidnoy game by clicks on a phone, a 52-card game at six seats on a desktop."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from games import services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game
from games.selectors.replay import verify_game
from tests.e2e.test_browser import (
    PHONE,
    play_one_move,
    play_to_end,
    state_of,
    wait_for_version_above,
)
from tests.e2e.test_layout import check_table_fits, funded_player, log_in, open_screen

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

DESKTOP = {"width": 1280, "height": 720}
# The browser's own moves in the 52-card game before the test finishes it through the service.
OWN_MOVES = 3
# The hand the 52-card game's player is given to defend with: more than a phone shows unscrolled.
BIG_HAND = 30


def open_lobby(page: Page, live_url: str, **filters: str) -> None:
    """The lobby, live, with these filters chosen (select id suffix -> value)."""
    page.goto(f"{live_url}/lobby/")
    expect(page.locator("#live-dot.on")).to_be_attached()
    for name, value in filters.items():
        page.locator(f"#filter-{name}").select_option(value)


def badges_of(tile) -> list[str]:
    return tile.locator(".option-badge [aria-hidden=true]").all_inner_texts()


def test_a_24_card_podkidnoy_table_found_in_the_lobby_and_played_by_clicks_on_a_phone(
    browser, live_url, off_loop, screenshot
):
    host, guest, other = (funded_player(name) for name in ("host24", "guest24", "other36"))
    hidden = off_loop(services.table_create, user=other, stake=100_00, seats=2)
    guest_page = log_in(browser, live_url, guest, PHONE)
    open_lobby(guest_page, live_url, transfer="off", deck="24")
    tiles = guest_page.get_by_test_id("table-tile")
    expect(tiles).to_have_count(0)

    # A table opened while the filter is on: the lobby's live updates pass through it too.
    host_page = log_in(browser, live_url, host, PHONE)
    host_page.goto(f"{live_url}/lobby/#new-table")
    form = host_page.get_by_test_id("create-table")
    form.locator("input[name=stake]").fill("100")
    form.locator("select[name=seats]").select_option("2")
    form.locator("select[name=transfer]").select_option("False")
    form.locator("select[name=deck]").select_option("24")
    form.locator("select[name=speed]").select_option("fast")
    expect(form.locator("select[name=turn_seconds]")).to_be_hidden()  # a preset sets the times
    screenshot(host_page, "options-create-phone")
    form.get_by_test_id("create-submit").click()
    expect(host_page).to_have_url(re.compile(r"/table/\d+/$"))
    table_id = int(host_page.url.rstrip("/").rsplit("/", 1)[1])

    expect(tiles).to_have_count(1)
    tile = tiles.first
    assert tile.get_attribute("data-table-id") == str(table_id) != str(hidden.pk)
    assert badges_of(tile) == ["Подк.", "24", "⚡"]
    screenshot(guest_page, "options-lobby-filter-phone")
    guest_page.locator("#filter-deck").select_option("")
    guest_page.locator("#filter-transfer").select_option("")
    expect(tiles).to_have_count(2)  # the 36-card table was listed all along
    guest_page.locator("#filter-deck").select_option("24")
    expect(tiles).to_have_count(1)
    tile.get_by_test_id("join").click()
    expect(guest_page).to_have_url(f"{live_url}/table/{table_id}/")

    pages = [host_page, guest_page]
    for page in pages:
        page.wait_for_function("() => window.durakTable && window.durakTable.connected")
        expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    # The phone's game bar names the options.
    bar = guest_page.locator("#table-bar-options .option-badge [aria-hidden=true]")
    expect(bar).to_have_text(["Подк.", "24", "⚡"])
    assert {code[0] for code in state_of(guest_page)["view"]["hand"]} <= set("9TJQKA")
    screenshot(guest_page, "options-24-table-phone")

    stats = play_to_end(pages, random.Random(24))
    assert stats["moves"] > 0 and stats["transfer"] == 0
    game = Game.objects.get(table_id=table_id)
    assert game.status == Game.Status.FINISHED
    assert (game.transfer, game.deck) == (False, 24)
    assert verify_game(game) == []
    expect(guest_page.get_by_test_id("result")).to_be_visible()
    screenshot(guest_page, "options-24-result-phone")


def make_others_move(game_id: int, seat: int) -> None:
    """The other seats move (the engine's bot for each) until the game waits for `seat`."""
    for _ in range(500):
        game = Game.objects.get(pk=game_id)
        engine = EngineGame.from_dict(game.state)
        if game.status != Game.Status.PLAYING or seat in engine.waiting_for:
            return
        other = engine.waiting_for[0]
        services.game_apply_action(
            game_id=game_id,
            user=type(game.table.created_by).objects.get(pk=game.players[other]),
            action=choose_action(engine, other),
            expected_version=game.version,
        )
    raise AssertionError("the other seats did not reach the player's turn")


def defend_with_a_big_hand(game_id: int, seat: int) -> None:
    """Rewrite the running deal: `seat` defends one card holding ``BIG_HAND`` cards, the lowest
    of the deck among them; the other seats share the rest, and the talon is empty."""
    game = Game.objects.get(pk=game_id)
    state = game.state
    players = len(state["hands"])
    deck = sorted(
        [card for hand in state["hands"] for card in hand]
        + state["talon"]
        + state["discard"]
        + [pair[side] for pair in state["table"] for side in ("attack", "defense") if pair[side]],
        key=lambda code: ("23456789TJQKA".index(code[0]), code[1]),
    )
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[seat], rest = deck[:BIG_HAND], deck[BIG_HAND:]
    attack = rest.pop()
    for index, card in enumerate(rest):
        hands[(seat + 1 + index % (players - 1)) % players].append(card)
    state.update(
        hands=hands,
        talon=[],
        discard=[],
        table=[{"attack": attack, "defense": None}],
        attacker=(seat - 1) % players,
        defender=seat,
        passed=[],
        taking=False,
        first_bout=False,
        attack_limit=6,  # classic limits: the bout's most attack cards
    )
    EngineGame.from_dict(state)  # still a valid position
    Game.objects.filter(pk=game_id).update(
        state=state, deadline=timezone.now() + timedelta(minutes=10)
    )


def test_a_52_card_table_for_six_found_in_the_lobby_and_played_on_a_desktop(
    browser, live_url, off_loop, play_out, screenshot
):
    others = [funded_player(f"deck52seat{n}") for n in range(5)]
    table = off_loop(
        services.table_create,
        user=others[0],
        stake=10_00,
        seats=6,
        options={"deck": 52, "limit": "classic"},
    )
    for user in others[1:]:
        off_loop(services.table_join, table_id=table.pk, user=user)
    off_loop(services.table_create, user=funded_player("deck36host"), stake=10_00, seats=6)

    player = funded_player("deck52player")
    page = log_in(browser, live_url, player, DESKTOP)
    open_lobby(page, live_url, deck="52")
    tiles = page.get_by_test_id("table-tile")
    expect(tiles).to_have_count(1)
    assert badges_of(tiles.first) == ["Перев.", "52", "Классика"]
    screenshot(page, "options-lobby-filter-desktop")
    tiles.first.get_by_test_id("join").click()
    expect(page).to_have_url(f"{live_url}/table/{table.pk}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    expect(page.locator(".opponents .seat[data-testid=seat]")).to_have_count(5)
    expect(page.locator("#table-options .option-badge [aria-hidden=true]")).to_have_text(
        ["Перев.", "52", "Классика"]
    )
    game = Game.objects.get(table=table)
    seat = game.players.index(player.pk)
    assert state_of(page)["view"]["talon_size"] == 52 - 36
    screenshot(page, "options-52-table-desktop")

    rng, stats = (
        random.Random(52),
        dict.fromkeys(["lead", "throw", "defend", "transfer", "take", "pass", "drag"], 0),
    )
    for _ in range(OWN_MOVES):
        off_loop(make_others_move, game.pk, seat)
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            break
        # The test's moves reach the server's sockets only through the database.
        page.reload()
        page.wait_for_function(
            "v => window.durakTable.connected && window.durakTable.state.version === v",
            arg=game.version,
        )
        play_one_move(page, state_of(page), rng, stats)
        wait_for_version_above(page, game.version)
        expect(page.locator("#toast.error")).to_be_hidden()

    # A hand grown big after takes still fits, every card a tap target, on a desktop and a phone.
    defend_with_a_big_hand(game.pk, seat)
    for screen in ("desktop-1280x720", "phone-360x740"):
        screen_page = open_screen(browser, live_url, player, screen, f"/table/{table.pk}/")
        expect(screen_page.get_by_test_id("take")).to_be_visible()
        check_table_fits(screen_page, screen, cards=BIG_HAND)
        two = screen_page.locator("#hand .pcard[data-card='2S']")
        expect(two).to_have_attribute("aria-label", "двойка пик")
        expect(two.locator(".corner.top span").first).to_have_text("2")
        screenshot(screen_page, f"options-52-big-hand-{screen}")
        screen_page.context.close()

    game = off_loop(play_out, Game.objects.get(pk=game.pk))
    page.reload()
    expect(page.get_by_test_id("result")).to_be_visible()
    assert game.percentages == [40, 30, 15, 10, 5, 0]
    screenshot(page, "options-52-result-desktop")
