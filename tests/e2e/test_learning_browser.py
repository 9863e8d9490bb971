"""Learning in real Chromium: a post-game analysis queued by the first visit fills the page in
when the worker is done, and solving a puzzle moves the player's puzzle rating; the day's
puzzle is on the home page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game, GameAnalysis, Puzzle
from tests.e2e.test_layout import DESKTOP, PHONE, funded_player, log_in
from tests.games.test_learning import _puzzle_game

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_analysis_fills_in_when_ready_and_a_solved_puzzle_moves_the_rating(
    browser, live_url, celery_worker, off_loop, play_out, screenshot
):
    players = [funded_player(name) for name in ("learnanna", "learnboris")]
    table = off_loop(services.table_create, user=players[0], stake=100_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=players[1])
    game = off_loop(play_out, Game.objects.get(table=table))

    page = log_in(browser, live_url, players[0], PHONE)
    page.goto(f"{live_url}/game/{game.pk}/")
    page.get_by_test_id("analysis-link").click()
    # The first visit queued the analysis: the page says so, then fills in by itself.
    expect(page.get_by_test_id("analysis-wait")).to_be_visible()
    expect(page.get_by_test_id("analysis-chart")).to_be_visible(timeout=60_000)
    analysis = GameAnalysis.objects.get(game=game, user=players[0])
    assert analysis.status == GameAnalysis.Status.DONE
    expect(page.get_by_test_id("costly-move")).to_have_count(len(analysis.costliest))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "analysis-phone")
    wide = log_in(browser, live_url, players[0], DESKTOP)
    wide.goto(f"{live_url}/game/{game.pk}/analysis/")
    expect(wide.get_by_test_id("analysis-chart")).to_be_visible()
    screenshot(wide, "analysis-desktop")

    off_loop(_puzzle_game)
    puzzle = Puzzle.objects.order_by("id").first()
    answer = services.puzzle_legal_moves(puzzle).index(puzzle.answer)
    page.goto(f"{live_url}/puzzles/")
    expect(page).to_have_url(re.compile(rf"/puzzles/{puzzle.pk}/$"))
    rating = page.get_by_test_id("puzzle-rating")
    before = int(rating.text_content())
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "puzzle-phone")
    wide.goto(f"{live_url}/puzzles/{puzzle.pk}/")
    screenshot(wide, "puzzle-desktop")
    page.locator(f"[data-testid=puzzle-move][value='{answer}']").click()
    expect(page.get_by_test_id("puzzle-result")).to_contain_text("Решено!")
    assert int(rating.text_content()) > before
    screenshot(page, "puzzle-solved-phone")
    page.goto(f"{live_url}/")
    expect(page.get_by_test_id("daily-puzzle")).to_be_visible()
    screenshot(page, "home-daily-puzzle-phone")
