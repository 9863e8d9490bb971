"""The disconnect charter in real Chromium: a dropped player is played for only when his time is
up and is told on his return; a woken page asks for the state at once; leaving practice ends
the practice game."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import Game, GameEvent, Seat, Table
from tests.e2e.test_layout import DESKTOP, funded_player, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# The table of the promise: a 30 s turn. Its throw-in window is the shortest a table may have,
# so the other player's waits pass quickly.
TURN_SECONDS = 30
THROW_SECONDS = 3
DROP_SECONDS = 45
# The deadline loop fires a due deadline within a fraction of a second; a busy machine, later.
LATE_S = 5.0
# What the notice says for each kind, by count (Russian plural forms).
TOLD = {
    "take": {1: "взяли 1 раз", 2: "взяли 2 раза"},
    "pass": {1: "пас 1 раз", 2: "пас 2 раза"},
    "lead": {1: "сходили младшей картой 1 раз", 2: "сходили младшей картой 2 раза"},
}
KIND_OF = {"take": "take", "pass": "pass", "attack": "lead"}


def open_page(browser, live_url: str, user, table_id: int) -> Page:
    page = log_in(browser, live_url, user, DESKTOP)
    page.goto(f"{live_url}/table/{table_id}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    return page


def test_a_player_dropped_for_45_s_is_played_for_only_when_his_time_is_up_and_told_on_return(
    browser, live_url, celery_worker, off_loop, screenshot
):
    host, guest = funded_player("dropper"), funded_player("stayer")
    table = off_loop(
        services.table_create,
        user=host,
        stake=10_00,
        seats=2,
        turn_seconds=TURN_SECONDS,
        throw_seconds=THROW_SECONDS,
    )
    off_loop(services.table_join, table_id=table.pk, user=guest)
    game = Game.objects.get(table=table)
    users = {user.pk: user for user in (host, guest)}
    stayer_seat = EngineGame.from_dict(game.state).attacker
    dropper_seat = 1 - stayer_seat
    dropper, stayer = users[game.players[dropper_seat]], users[game.players[stayer_seat]]
    page = open_page(browser, live_url, dropper, table.pk)

    def stayer_moves() -> None:
        engine = EngineGame.from_dict(game.state)
        off_loop(
            services.game_apply_action,
            game_id=game.pk,
            user=stayer,
            action=choose_action(engine, stayer_seat),
            expected_version=game.version,
        )

    # The stayer leads; the dropper, to defend, closes his page: his socket is gone.
    stayer_moves()
    page.context.close()
    dropped = time.monotonic()

    # For 45 s the stayer answers at once whenever the game waits for him; each wait for the
    # dropper is noted with the deadline it had.
    deadlines = {}
    while time.monotonic() - dropped < DROP_SECONDS:
        game.refresh_from_db()
        assert game.status == Game.Status.PLAYING
        engine = EngineGame.from_dict(game.state)
        if dropper_seat in engine.waiting_for:
            deadlines.setdefault(game.version, game.deadline)
            time.sleep(0.1)  # the deadline loop runs in the worker: look again shortly
        else:
            stayer_moves()

    played_for = list(GameEvent.objects.filter(game=game, seat=dropper_seat).order_by("version"))
    assert played_for and all(event.automatic for event in played_for)
    assert 1 <= len(played_for) <= 2
    seat = Seat.objects.get(table=table, user=dropper, left_at__isnull=True)
    for event in played_for:
        waited_since = GameEvent.objects.get(game=game, version=event.version - 1).created_at
        deadline = deadlines[event.version - 1]
        # Never sooner than his deadline, and the deadline was his whole time.
        assert event.created_at >= deadline
        whole = TURN_SECONDS if event.action["type"] != "pass" else THROW_SECONDS
        assert deadline - waited_since >= timedelta(seconds=whole - 1)
        assert event.created_at - deadline < timedelta(seconds=LATE_S)
    counts: dict[str, int] = {}
    for event in played_for:
        kind = KIND_OF[event.action["type"]]
        counts[kind] = counts.get(kind, 0) + 1
    assert seat.server_moves == counts and seat.away == (len(played_for) == 2)

    # Back: the page tells him what the server did, and the log marks those moves.
    page = open_page(browser, live_url, dropper, table.pk)
    told = ", ".join(TOLD[kind][count] for kind, count in counts.items())
    summary = page.get_by_test_id("away-summary")
    expect(summary).to_have_text(f"Пока вас не было: {told}")
    expect(page.get_by_test_id("away-notice")).to_be_visible()
    expect(page.get_by_test_id("log").locator("li.auto").first).to_contain_text("(ход сервера)")
    screenshot(page, "away-summary-desktop-ru")
    page.get_by_test_id("back").click()
    expect(page.get_by_test_id("away-notice")).to_be_hidden()
    seat.refresh_from_db()
    assert (seat.server_moves, seat.away) == ({}, False)


# Every frame the page's sockets send, kept in the page for the test to read.
RECORD_SENT = """(() => {
  const send = WebSocket.prototype.send;
  window.sentFrames = [];
  WebSocket.prototype.send = function (data) {
    window.sentFrames.push(JSON.parse(data).type);
    return send.call(this, data);
  };
})()"""
# A ping and a request for the state, both sent after the first `n` frames.
WOKEN = """n => {
  const since = window.sentFrames.slice(n);
  return window.durakTable.connected && since.includes("ping") && since.includes("sync");
}"""


def test_a_page_back_online_or_shown_again_asks_for_the_state_at_once(browser, live_url, off_loop):
    host, guest = funded_player("waker"), funded_player("wakewatch")
    table = off_loop(services.table_create, user=host, stake=10_00, seats=2)
    off_loop(services.table_join, table_id=table.pk, user=guest)
    page = log_in(browser, live_url, host, DESKTOP)
    page.add_init_script(RECORD_SENT)
    page.goto(f"{live_url}/table/{table.pk}/")
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")
    # The server sends the whole state on connect: an opened socket asks for nothing.
    assert "sync" not in page.evaluate("() => window.sentFrames")

    sent = page.evaluate("() => window.sentFrames.length")
    page.context.set_offline(True)
    page.context.set_offline(False)  # the browser says it is online again
    page.wait_for_function(WOKEN, arg=sent)

    sent = page.evaluate("() => window.sentFrames.length")
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")  # shown again
    page.wait_for_function(WOKEN, arg=sent)


def test_standing_up_from_practice_ends_the_game_for_good(browser, live_url, celery_worker):
    player = funded_player("practiser")
    page = log_in(browser, live_url, player, DESKTOP)
    page.goto(f"{live_url}/lobby/")
    page.get_by_test_id("practice").locator("select[name=seats]").select_option("3")
    page.get_by_test_id("practice-submit").click()
    expect(page).to_have_url(re.compile(r"/table/\d+/$"))
    table = Table.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    page.wait_for_function("() => window.durakTable && window.durakTable.connected")

    page.get_by_test_id("leave").click()
    expect(page).to_have_url(re.compile(r"/lobby/$"))
    game = Game.objects.get(table=table)
    assert game.status == Game.Status.ABANDONED and game.deadline is None
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
    version = game.version
    # A bot's move already on its way (at most BOT_DELAY_SECONDS, 0.8 s here) finds it over.
    page.wait_for_timeout(2000)
    assert Game.objects.get(pk=game.pk).version == version
    assert not GameEvent.objects.filter(game=game, seat=0, automatic=True).exists()

    page.goto(f"{live_url}/profile/")
    expect(page.get_by_test_id("practice-history")).to_have_count(0)
    page.goto(f"{live_url}/table/{table.pk}/")
    expect(page.get_by_test_id("playfield")).to_contain_text("Стол закрыт")
