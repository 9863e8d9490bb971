"""Friends in real Chromium, two browsers: a request accepted, an invitation to a table
accepted from the other browser, and a private note on the player card."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from durak_site.accounts.models import Friendship, PlayerNote
from games import services
from games.models import Game, Seat
from tests.e2e.test_layout import DESKTOP, PHONE, funded_player, log_in
from tests.e2e.test_table_ui import shot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WORDS = {
    "ru-RU": {"invites": "приглашает вас", "at_table": "за столом №", "saved": "Заметка сохранена"},
    "en-US": {"invites": "invites you", "at_table": "at table #", "saved": "Note saved"},
}


@pytest.mark.parametrize(
    ("viewport", "locale"), [(PHONE, "ru-RU"), (DESKTOP, "en-US")], ids=["phone-ru", "desktop-en"]
)
def test_a_friend_request_and_an_invitation_are_accepted_from_the_other_browser(
    browser, live_url, off_loop, screenshot, viewport, locale
):
    words = WORDS[locale]
    suffix = f"{locale[:2]}{viewport['width']}"
    anna, boris = funded_player(f"anna{suffix}"), funded_player(f"boris{suffix}")
    host = log_in(browser, live_url, anna, viewport, locale)
    guest = log_in(browser, live_url, boris, viewport, locale)

    # Anna asks by nickname; Boris accepts in his own browser.
    host.goto(f"{live_url}/friends/")
    host.get_by_test_id("friend-nickname").fill(boris.username)
    host.get_by_test_id("friend-add-submit").click()
    expect(host.get_by_test_id("outgoing")).to_contain_text(boris.username)
    guest.goto(f"{live_url}/friends/")
    guest.get_by_test_id("incoming").get_by_test_id("accept").click()
    expect(guest.get_by_test_id("friends")).to_contain_text(anna.username)
    assert Friendship.objects.get().status == Friendship.Status.ACCEPTED

    # Anna sits at a table: her friend sees where, and she invites him from her friends page.
    table = off_loop(services.table_create, user=anna, stake=10_00, seats=2)
    host.goto(f"{live_url}/table/{table.pk}/")
    host.wait_for_function("() => window.durakTable && window.durakTable.connected")
    guest.reload()
    where = guest.get_by_test_id("friend-where")
    expect(where).to_contain_text(f"{words['at_table']}{table.pk}")
    shot(screenshot, guest, "friends", viewport, locale)
    guest.goto(f"{live_url}/lobby/")
    expect(guest.locator("#live-dot.on")).to_be_attached()
    invite_page = host.context.new_page()
    invite_page.goto(f"{live_url}/friends/")
    invite_page.get_by_test_id("invite").click()
    expect(invite_page.locator(".messages")).to_contain_text(re.compile(r"\S"))

    # The invitation shows in his lobby; one click sits him down and the game starts.
    toast = guest.get_by_test_id("invite-toast")
    expect(toast).to_contain_text(f"{anna.username} {words['invites']}")
    expect(guest.get_by_test_id("invite-accept")).to_be_focused()
    guest.get_by_test_id("invite-accept").click()
    guest.wait_for_url(re.compile(rf"/table/{table.pk}/$"))
    guest.wait_for_function("() => window.durakTable && window.durakTable.statesReceived > 0")
    assert Seat.objects.filter(table=table, user=boris, left_at__isnull=True).exists()
    assert Game.objects.filter(table=table).exists()

    # On his table page he opens her player card from the keyboard and writes a private note
    # on her, in red.
    guest.locator(".seat[data-testid=seat] > .name").first.focus()
    guest.keyboard.press("Enter")
    card = guest.get_by_test_id("player-card")
    expect(card).to_contain_text(anna.username)
    expect(guest.get_by_test_id("card-relation")).to_be_visible()
    guest.get_by_test_id("card-note-text").fill("leads trumps early")
    guest.get_by_test_id("card-note-colour").select_option("red")
    guest.get_by_test_id("card-note-save").click()
    expect(guest.get_by_test_id("card-said")).to_contain_text(words["saved"])
    expect(card.locator(".note-form.note-red")).to_be_visible()
    shot(screenshot, guest, "player-card-note", viewport, locale)
    note = PlayerNote.objects.get()
    assert (note.author, note.player, note.text, note.colour) == (
        boris,
        anna,
        "leads trumps early",
        "red",
    )

    # Her profile shows him the same note, and that they are friends; it fits the screen.
    guest.goto(f"{live_url}/players/{anna.username}/")
    expect(guest.get_by_test_id("note-text")).to_have_value("leads trumps early")
    expect(guest.get_by_test_id("relation")).to_be_visible()
    assert guest.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    shot(screenshot, guest, "profile-note", viewport, locale)
