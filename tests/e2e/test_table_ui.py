"""The live table's behaviour in real Chromium beyond whole games: drags, updates, layout."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.engine import Game as EngineGame
from games.models import Game
from tests.e2e.test_layout import DESKTOP, funded_player, log_in

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


def open_table(browser, live_url: str, user, table_id: int, viewport=DESKTOP) -> Page:
    page = log_in(browser, live_url, user, viewport)
    page.goto(f"{live_url}/table/{table_id}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    expect(page.get_by_test_id("hand").locator(".pcard")).to_have_count(6)
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
