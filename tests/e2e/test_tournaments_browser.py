"""A player registers for an Arena in the browser, is called to his game when it starts, plays
it, and sees the standings change live; the pages on a phone and a desktop."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Game, Table
from tests.e2e.test_layout import DESKTOP, PHONE, funded_player, log_in
from tournaments import services
from tournaments.models import Kind, Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_a_player_registers_plays_an_arena_game_and_sees_the_standings(
    browser, live_url, off_loop, play_out, screenshot, server_sockets
):
    starts = timezone.now() + timedelta(minutes=5)
    arena = Tournament.objects.create(
        name="Вечерняя арена",
        kind=Kind.ARENA,
        starts_at=starts,
        minutes=30,
        buy_in=100_00,
        fee=5_00,
        prize_percentages=[50, 30, 20],
    )
    Tournament.objects.create(
        name="Sit & Go на 8", kind=Kind.SIT_AND_GO, seats=8, prize_percentages=[65, 35]
    )
    player = funded_player("arenafan")
    others = [funded_player(f"rival{n}") for n in range(3)]
    for user in others:
        off_loop(services.tournament_register, tournament_id=arena.pk, user=user)

    page = log_in(browser, live_url, player, PHONE)
    page.goto(f"{live_url}/tournaments/")
    expect(page.get_by_test_id("tournaments-upcoming")).to_contain_text("Вечерняя арена")
    expect(page.locator("[data-countdown]").first).to_have_text(re.compile(r"через \d\d:\d\d"))
    screenshot(page, "tournaments-phone")
    page.get_by_role("link", name="Вечерняя арена").click()
    page.get_by_test_id("register").click()
    expect(page.get_by_test_id("standings")).to_contain_text(player.username)
    expect(page.get_by_test_id("unregister")).to_be_visible()

    # The test's clock reaches the start: the page calls the player to his table, live.
    off_loop(services.tournaments_tick, now=starts)
    expect(page.get_by_test_id("current-game")).to_be_visible()
    expect(page.locator("#tournament-notice")).to_have_text("Ваша партия готова")
    expect(page.get_by_test_id("tournament-status")).to_have_text("идёт")
    expect(page.get_by_test_id("unregister")).to_be_hidden()
    expect(page.locator("#countdown-label")).to_have_text("Конец")
    expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"через 3\d:\d\d"))
    screenshot(page, "tournament-running-phone")
    table_page = page.context.new_page()
    table_page.goto(live_url + page.get_by_test_id("current-game").get_attribute("href"))
    expect(table_page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)

    table = Table.objects.get(tournament_id=arena.pk)
    off_loop(play_out, Game.objects.get(table=table))
    # The standings on the tournament's page follow the game's end without a reload.
    expect(page.get_by_test_id("current-game")).to_be_hidden()
    rows = page.get_by_test_id("standings").locator("tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.filter(has_text=player.username).locator("td").nth(3)).to_have_text("1")
    table_page.reload()
    expect(table_page.get_by_test_id("result")).to_be_visible()

    desktop = log_in(browser, live_url, player, DESKTOP)
    desktop.goto(f"{live_url}/tournaments/{arena.pk}/")
    expect(desktop.get_by_test_id("standings")).to_contain_text(player.username)
    screenshot(desktop, "tournament-running-desktop")
    desktop.goto(f"{live_url}/tournaments/")
    screenshot(desktop, "tournaments-desktop")
