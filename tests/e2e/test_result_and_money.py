"""The result of a game in real Chromium: each net and rating change and the ratings it left at
the table; practice without money and with a new game in one click, bots named in the page's
language; the way to the deposit page at 0 ₽; a withdrawal request confirmed."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from playwright.sync_api import Page, expect

from games import services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, Rating, Table
from games.rating import display_rating
from tests.e2e.test_layout import DESKTOP, PHONE, funded_player, log_in
from tests.games.test_practice import step
from tests.players import create_player
from wallet.money import format_money as format_in_language

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

STAKE = 100_00


def format_money(amount: int, *, signed: bool = False) -> str:
    """An amount as the Russian pages write it."""
    with translation.override("ru"):
        return format_in_language(amount, signed=signed)


def signed_number(value: int) -> str:
    return f"+{value}" if value > 0 else f"\u2212{-value}" if value < 0 else "0"


def state_of(page: Page) -> dict:
    return page.evaluate("() => window.durakTable.state")


def table_page(page: Page, live_url: str, table_id: int) -> Page:
    page.goto(f"{live_url}/table/{table_id}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    return page


def test_a_finished_game_shows_each_net_and_rating_change_and_the_ratings_it_left(
    browser, live_url, off_loop, play_out, screenshot
):
    players = [funded_player(name) for name in ("netanna", "netboris")]
    table = off_loop(services.table_create, user=players[0], stake=STAKE, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=players[1])
    game = Game.objects.get(table=table)
    pages = [
        table_page(log_in(browser, live_url, user, viewport), live_url, table.pk)
        for user, viewport in zip(players, (PHONE, DESKTOP), strict=True)
    ]
    # The leader leads: now the defender has the move, and the attacker waits.
    engine = EngineGame.from_dict(game.state)
    leader, defender = engine.attacker, engine.defender
    off_loop(
        services.game_apply_action,
        game_id=game.pk,
        user=players[leader],
        action=choose_action(engine, leader),
        expected_version=game.version,
    )
    for seat, page in enumerate(pages):
        page.reload()
        plaque = page.locator(f".seat[data-seat='{defender}'] .role")
        # The own plaque leaves "your move" to the countdown by the hand.
        turn = ["отбивается"] if seat == defender else ["ход", "отбивается"]
        expect(plaque).to_have_text(turn)
        expect(page.locator(f".seat[data-seat='{leader}'] .role")).to_have_text(["атакует"])
    screenshot(pages[0], "roles-phone")
    screenshot(pages[1], "roles-desktop")

    game.refresh_from_db()
    game = off_loop(play_out, game)
    for seat, (page, user) in enumerate(zip(pages, players, strict=True)):
        page.reload()  # the game was finished by the test, not through the server's sockets
        expect(page.get_by_test_id("result")).to_be_visible()
        row = next(row for row in state_of(page)["result"]["payouts"] if row["seat"] == seat)
        rating = Rating.objects.get(user=user)
        after = display_rating(rating.mu, rating.sigma)
        assert row["net"] == row["amount"] - STAKE
        assert (row["rating"], row["rating_change"]) == (after, after - game.ratings[str(seat)])
        expect(page.get_by_test_id("result-own-net")).to_have_text(
            format_money(row["net"], signed=True)
        )
        expect(page.get_by_test_id("result-own-rating")).to_have_text(
            f"рейтинг {after} ({signed_number(row['rating_change'])})"
        )
        mine = page.locator("#result tr.mine")
        expect(mine.get_by_test_id("result-net")).to_have_text(
            format_money(row["net"], signed=True)
        )
        expect(mine.get_by_test_id("result-payout")).to_have_text(format_money(row["amount"]))
        # The own plaque shows the rating the game left him.
        expect(page.get_by_test_id("my-seat").get_by_test_id("seat-rating")).to_have_text(
            str(after)
        )
        expect(page.get_by_test_id("rematch")).to_have_text(
            f"Сыграть ещё · ставка {format_money(STAKE)}"
        )
    screenshot(pages[0], "result-net-rating-phone")
    screenshot(pages[1], "result-net-rating-desktop")


def finish_practice(game: Game, user) -> Game:
    """The player moves with the heuristic bot, the bots move at once: no worker needed."""
    while game.status == Game.Status.PLAYING:
        step(game, user)
        game.refresh_from_db()
    return game


@pytest.mark.parametrize(("locale", "bot"), [("en-US", "Novice"), ("ru-RU", "Новичок")])
def test_practice_shows_no_money_offers_a_new_game_and_names_bots_in_the_pages_language(
    browser, live_url, off_loop, screenshot, locale, bot
):
    user = funded_player(f"practice{locale[:2]}")
    table = off_loop(services.practice_start, user=user, players=3, level="novice")
    page = table_page(log_in(browser, live_url, user, PHONE, locale=locale), live_url, table.pk)
    nicknames = page.locator("#opponents .seat .nick")
    expect(nicknames).to_have_text([f"{bot} 1", f"{bot} 2"])
    if bot == "Novice":
        expect(page.locator("#opponents")).not_to_contain_text("Новичок")

    off_loop(finish_practice, Game.objects.get(table=table), user)
    page.reload()
    result = page.get_by_test_id("result")
    expect(result).to_be_visible()
    expect(result.locator(".money")).to_have_count(0)
    expect(result).not_to_contain_text(re.compile("Payout|Выплата|₽"))
    expect(result.get_by_test_id("result-own")).to_have_count(0)
    expect(result.get_by_test_id("result-player").first).to_have_text(
        re.compile(rf"^({bot} [12]|{user.username})$")
    )
    screenshot(page, f"practice-result-phone-{locale[:2]}")

    result.get_by_test_id("practice-again").click()
    expect(page).not_to_have_url(re.compile(rf"/table/{table.pk}/$"))
    expect(page).to_have_url(re.compile(r"/table/\d+/$"))
    expect(page.get_by_test_id("practice-bar-mark")).to_be_visible()
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
    again = Table.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert (again.practice, again.seat_count, again.bot_level) == (True, 3, "novice")
    assert Game.objects.get(table=again).status == Game.Status.PLAYING


def test_an_empty_wallet_offers_a_deposit_and_a_withdrawal_request_is_confirmed(
    browser, live_url, screenshot
):
    empty = create_player(nickname="emptywallet", verified_email=True)
    page = log_in(browser, live_url, empty, PHONE)
    page.goto(f"{live_url}/lobby/")
    expect(page.get_by_test_id("balance")).to_have_text(format_money(0))
    screenshot(page, "header-deposit-phone")
    page.get_by_test_id("header-deposit").click()
    expect(page).to_have_url(re.compile(r"/wallet/deposit/$"))

    rich = funded_player("withdrawer")
    page = log_in(browser, live_url, rich, DESKTOP)
    page.goto(f"{live_url}/lobby/")
    expect(page.get_by_test_id("header-deposit")).to_be_hidden()
    page.goto(f"{live_url}/wallet/withdraw/")
    form = page.get_by_test_id("withdraw-form")
    form.locator("input[name=amount]").fill("250")
    form.locator("[name=payout_details]").fill("Карта 2200 0000 0000 0000")
    page.get_by_test_id("withdraw-submit").click()
    confirmation = page.locator(".messages .message.success")
    expect(confirmation).to_contain_text(f"Заявка на вывод {format_money(250_00)} принята")
    expect(confirmation).to_contain_text("можно отменить")
    expect(page.get_by_test_id("balance")).to_have_text(format_money(1000_00 - 250_00))
    screenshot(page, "withdrawal-confirmed-desktop")


def test_a_rematch_the_wallet_cannot_pay_links_to_the_deposit_page(
    browser, live_url, off_loop, play_out, screenshot
):
    players = [create_player(balance=STAKE, nickname=name) for name in ("shortanna", "shortbob")]
    table = off_loop(services.table_create, user=players[0], stake=STAKE, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=players[1])
    game = off_loop(play_out, Game.objects.get(table=table))
    durak = EngineGame.from_dict(game.state).durak
    if durak is None:
        pytest.skip("this deal ended in a draw: nobody's wallet is empty")
    page = table_page(log_in(browser, live_url, players[durak], DESKTOP), live_url, table.pk)
    expect(page.get_by_test_id("balance")).to_have_text(format_money(0))
    expect(page.get_by_test_id("header-deposit")).to_be_visible()
    page.get_by_test_id("rematch").click()
    short = page.get_by_test_id("rematch-short")
    expect(short).to_contain_text("Недостаточно средств")
    screenshot(page, "rematch-short-desktop")
    short.get_by_test_id("rematch-deposit").click()
    expect(page).to_have_url(re.compile(r"/wallet/deposit/$"))
