"""The table chat in real Chromium, on a desktop and a phone, in Russian and in English."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from games.models import ChatBan, ChatMessage, ChatReport
from tests.e2e.test_layout import PHONE, funded_player, log_in
from tests.e2e.test_table_ui import EVERY_SCREEN, both_pages, lead, shot, wait_for_version
from tests.players import create_staff

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

GOOD_LUCK = {"ru-RU": "Удачи!", "en-US": "Good luck!"}
SPECTATORS_NOTE = {"ru-RU": "пишут только игроки", "en-US": "only the players write"}
# Written as markup, shown as text.
TRICKY = '<img src=x onerror="window.__owned=1"> привет & <b>hi</b>'


def open_chat(page: Page) -> None:
    """The chat is folded away on a phone until the player opens it."""
    chat = page.get_by_test_id("chat")
    if chat.get_attribute("open") is None:
        chat.locator("summary").first.click()
    expect(chat).to_have_attribute("open", "")


def lines(page: Page):
    return page.get_by_test_id("chat-lines").locator(".chat-line")


@EVERY_SCREEN
def test_chat_reaches_the_table_spectators_only_read_mutes_hide_and_reports_reach_staff(
    browser, live_url, off_loop, screenshot, viewport, locale
):
    game, page, other = both_pages(browser, live_url, off_loop, "chat", viewport, locale)
    suffix = f"{locale[:2]}{viewport['width']}"
    watcher = log_in(browser, live_url, funded_player(f"chatview{suffix}"), viewport, locale)
    watcher.goto(f"{live_url}/table/{game.table_id}/")
    watcher.wait_for_function("() => window.durakTable && window.durakTable.connected")
    if viewport is PHONE:  # folded: a message arriving is counted on the fold
        expect(other.get_by_test_id("chat")).not_to_have_attribute("open", "")
    for each in (page, other, watcher):
        if viewport is not PHONE:
            open_chat(each)

    # The leader writes; the other player and the spectator read it as text, not markup.
    open_chat(page)
    page.get_by_test_id("chat-input").fill(TRICKY)
    page.get_by_test_id("chat-send").click()
    if viewport is PHONE:
        expect(other.get_by_test_id("chat-unread")).to_have_text("1")
        open_chat(other)
        expect(other.get_by_test_id("chat-unread")).to_be_hidden()
        open_chat(watcher)
    for each in (page, other, watcher):
        expect(lines(each).first.locator(".text")).to_have_text(TRICKY)
        assert each.locator("#chat img, #chat b").count() == 0
        assert each.evaluate("() => window.__owned") is None
    expect(page.get_by_test_id("chat-input")).to_have_value("")

    # Quick phrases read in the reader's language.
    other.get_by_test_id("chat-phrase-good_luck").click()
    expect(lines(page).nth(1).locator(".text")).to_have_text(GOOD_LUCK[locale])

    # The spectator reads and cannot write: no field, no phrases, a word why.
    expect(lines(watcher)).to_have_count(2)
    expect(watcher.get_by_test_id("chat-form")).to_be_hidden()
    expect(watcher.get_by_test_id("chat-phrase-good_luck")).to_be_hidden()
    expect(watcher.get_by_test_id("chat-spectator")).to_contain_text(SPECTATORS_NOTE[locale])
    assert ChatMessage.objects.filter(table_id=game.table_id).count() == 2

    # Mid-bout, with the chat open (on a phone the leader folds his sheet off the board first).
    if viewport is PHONE:
        page.get_by_test_id("chat").locator("summary").first.click()
    lead(page)
    open_chat(page)
    wait_for_version(other, game.version + 1)
    expect(other.locator("#playfield .pcard")).to_have_count(1)
    shot(screenshot, other, "board-chat", viewport, locale)

    # The other player reports the leader's message: it waits in the staff queue.
    other.locator(".chat-line").first.get_by_test_id("chat-report").click()
    expect(other.locator(".chat-line").first.get_by_test_id("chat-report")).to_be_disabled()
    report = ChatReport.objects.get()
    assert report.message.text == TRICKY and report.reporter != report.message.author
    staff = log_in_staff(browser, live_url, viewport, locale, suffix)
    staff.goto(f"{live_url}{reverse('admin:games_chatreport_changelist')}")
    row = staff.locator("#result_list tbody tr").first
    expect(row).to_contain_text(TRICKY)
    expect(row).to_contain_text(report.message.author.username)
    expect(row.locator(f"a[href='{reverse('game_detail', args=[game.pk])}']")).to_have_count(1)
    assert staff.locator("#result_list img").count() == 0

    # The leader mutes the other player: his lines go, here and after a reload, and new ones
    # never show; the spectator still reads him.
    page.locator(".chat-line", has_text=GOOD_LUCK[locale]).get_by_test_id("chat-mute").click()
    expect(lines(page)).to_have_count(1)
    other.get_by_test_id("chat-input").fill("still here?")
    other.get_by_test_id("chat-send").click()
    expect(lines(watcher)).to_have_count(3)
    page.reload()
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    open_chat(page)
    expect(lines(page)).to_have_count(1)
    expect(page.get_by_test_id("chat-muted-list")).to_contain_text(other_name(game, page))
    page.locator(".chat-muted summary").click()
    page.get_by_test_id("chat-unmute").click()
    expect(page.get_by_test_id("chat-muted-list")).to_be_hidden()  # the server heard it
    expect(lines(page)).to_have_count(1)  # what came while muted stays unread
    other.get_by_test_id("chat-phrase-thanks").click()
    expect(lines(page)).to_have_count(2)

    # Staff mute the reported author for a day from the queue; he is told until when.
    staff.locator("#result_list tbody tr").first.locator("a.button").click()
    staff.locator("select[name=hours]").select_option("24")
    staff.locator("textarea[name=reason]").fill("insults")
    staff.locator("input[type=submit]").click()
    expect(staff.locator(".messagelist")).to_contain_text(
        report.message.author.username, ignore_case=True
    )
    ban = ChatBan.objects.get()
    assert ban.user == report.message.author and ban.reason == "insults"
    page.reload()
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    open_chat(page)
    expect(page.get_by_test_id("chat-blocked")).to_be_visible()
    # The end, in the reader's own time zone and words.
    expect(page.get_by_test_id("chat-blocked")).to_contain_text(str(ban.until.year))
    expect(page.get_by_test_id("chat-form")).to_be_hidden()
    expect(lines(page)).to_have_count(4)  # he still reads, now the whole chat again


def other_name(game, page: Page) -> str:
    you = page.evaluate("() => window.durakTable.state.you")
    return game_players(game)[1 - you]


def game_players(game) -> list[str]:
    from django.contrib.auth import get_user_model

    names = dict(get_user_model().objects.filter(pk__in=game.players).values_list("pk", "username"))
    return [names[user_id] for user_id in game.players]


def log_in_staff(browser, live_url: str, viewport, locale: str, suffix: str) -> Page:
    staff = create_staff(nickname=f"chatstaff{suffix}")
    return log_in(browser, live_url, staff, viewport, locale)
