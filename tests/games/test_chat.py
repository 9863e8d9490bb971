"""The table chat over the real ASGI app, Redis channel layer and PostgreSQL."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.core.exceptions import ValidationError
from django.utils import timezone

from durak_site.audit.models import StaffAction
from games import services
from games.models import ChatBan, ChatMessage, ChatMute, ChatReport, Game, Table
from games.services import chat
from tests import players as tests_players
from tests.games.conftest import STAKE, TableClient, create_player

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

db = database_sync_to_async


@db
def players(count: int, **options) -> list:
    return [create_player(**options) for _ in range(count)]


@db
def open_table(users: list) -> Table:
    table = services.table_create(user=users[0], stake=STAKE, seats=len(users))
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    return table


@db
def messages_count() -> int:
    return ChatMessage.objects.count()


async def connect(users: list, table: Table, snapshots) -> list[TableClient]:
    clients = [TableClient(user, table.pk, snapshots) for user in users]
    for client in clients:
        await client.connect()
    for client in clients:
        await client.drain()  # the others' arrivals
    return clients


@pytest.fixture
def many_messages(monkeypatch):
    """The chat's own rate has its own test."""
    monkeypatch.setattr(chat, "CHAT_BURST", 1000)


async def test_a_message_reaches_everyone_at_its_table_and_nobody_elsewhere(
    snapshots, many_messages
):
    users = await players(5)
    table, other_table = await open_table(users[:2]), await open_table(users[3:])
    anna, boris, watcher = await connect(users[:3], table, snapshots)
    (elsewhere,) = await connect(users[3:4], other_table, snapshots)

    await anna.send({"type": "chat", "text": "  привет,\n <b>удачи</b>  "})
    for client in (anna, boris, watcher):
        frame = await client.receive("chat")
        assert frame["text"] == "привет, <b>удачи</b>"  # one line; escaped by the page
        assert frame["nickname"] == users[0].username and frame["phrase"] == ""
    await boris.send({"type": "chat_phrase", "phrase": "good_luck"})
    frame = await anna.receive("chat")
    assert (frame["phrase"], frame["text"], frame["nickname"]) == (
        "good_luck",
        "",
        boris.user.username,
    )
    await elsewhere.nothing_more()

    stored = await db(lambda: list(ChatMessage.objects.order_by("id").values("table", "game")))()
    game_id = await db(lambda: Game.objects.get(table=table).pk)()
    assert stored == [{"table": table.pk, "game": game_id}] * 2
    # Whoever comes (back) gets the game's chat with the table.
    late = TableClient(users[0], table.pk, snapshots)
    await late.connect()
    history = late.chat_history
    assert [(m["text"], m["phrase"]) for m in history["messages"]] == [
        ("привет, <b>удачи</b>", ""),
        ("", "good_luck"),
    ]
    assert history["muted"] == [] and history["muted_until"] is None
    for client in (anna, boris, watcher, elsewhere, late):
        await client.close()


async def test_bad_chat_messages_are_refused_with_a_reason_and_change_nothing(
    snapshots, many_messages
):
    users = await players(4)
    table, other_table = await open_table(users[:2]), await open_table(users[2:3] + users[3:])
    anna, watcher = await connect([users[0], users[2]], table, snapshots)
    await anna.send({"type": "chat", "text": "ok"})
    mine = await anna.receive("chat")
    other = await db(chat.chat_post)(table_id=other_table.pk, user=users[2], text="elsewhere")
    refusals = [
        (anna, {"type": "chat", "text": "   \n\t "}, "chat_empty"),
        (anna, {"type": "chat", "text": "\u200b\u0007"}, "chat_empty"),
        (anna, {"type": "chat", "text": "я" * 201}, "chat_too_long"),
        (anna, {"type": "chat_phrase", "phrase": "curse"}, "chat_unknown_phrase"),
        (anna, {"type": "chat", "text": 5}, "bad_message"),
        (anna, {"type": "chat", "text": "hi", "table": 9}, "bad_message"),
        (watcher, {"type": "chat", "text": "a spectator's word"}, "chat_spectator"),
        (watcher, {"type": "chat_phrase", "phrase": "hello"}, "chat_spectator"),
        (anna, {"type": "chat_report", "message": mine["id"]}, "chat_report_own"),
        (anna, {"type": "chat_report", "message": other.pk}, "chat_message_not_found"),
        (anna, {"type": "chat_report", "message": 10**9}, "chat_message_not_found"),
        (anna, {"type": "chat_report", "message": "1"}, "bad_message"),
        (
            anna,
            {"type": "chat_mute", "nickname": users[0].username, "muted": True},
            "chat_mute_self",
        ),
        (
            anna,
            {"type": "chat_mute", "nickname": users[3].username, "muted": True},
            "chat_not_at_table",
        ),
        (
            anna,
            {"type": "chat_mute", "nickname": "nobody-here", "muted": True},
            "chat_not_at_table",
        ),
        (anna, {"type": "chat_mute", "nickname": users[1].username, "muted": 1}, "bad_message"),
    ]
    before = await messages_count()
    for client, frame, code in refusals:
        await client.send(frame)
        error = await client.receive("error")
        assert error["code"] == code, (frame, error)
        assert error["message"]
    assert await messages_count() == before
    assert not await db(lambda: ChatMute.objects.exists() or ChatReport.objects.exists())()
    # 200 characters are fine.
    await anna.send({"type": "chat", "text": "я" * 200})
    assert (await watcher.receive("chat"))["text"] == "я" * 200
    for client in (anna, watcher):
        await client.close()


async def test_a_player_writing_too_fast_is_told_to_wait(snapshots, monkeypatch):
    monkeypatch.setattr(chat, "CHAT_RATE_PER_SECOND", 0.01)
    users = await players(2)
    table = await open_table(users)
    anna, boris = await connect(users, table, snapshots)
    for number in range(chat.CHAT_BURST):
        await anna.send({"type": "chat", "text": f"line {number}"})
        assert (await boris.receive("chat"))["text"] == f"line {number}"
    await anna.send({"type": "chat", "text": "one too many"})
    assert (await anna.receive("error"))["code"] == "chat_too_fast"
    await boris.nothing_more()
    assert await messages_count() == chat.CHAT_BURST
    for client in (anna, boris):
        await client.close()


async def test_a_muted_player_is_not_heard_by_who_muted_him_on_any_socket(snapshots, many_messages):
    users = await players(3)
    table = await open_table(users[:2])
    anna, boris, watcher = await connect(users, table, snapshots)
    (boris_again,) = await connect(users[1:2], table, snapshots)
    await boris.send({"type": "chat", "text": "before"})
    before = await anna.receive("chat")
    await watcher.receive("chat")
    await anna.send({"type": "chat_mute", "nickname": users[1].username, "muted": True})
    assert (await anna.receive("chat_mutes"))["muted"] == [users[1].username]

    await boris_again.send({"type": "chat", "text": "you cannot hear me"})
    assert (await watcher.receive("chat"))["text"] == "you cannot hear me"
    await anna.send({"type": "chat", "text": "and I speak on"})
    assert [(await boris.receive("chat"))["text"] for _ in range(3)] == [
        "before",
        "you cannot hear me",
        "and I speak on",
    ]
    assert (await anna.receive("chat"))["text"] == "and I speak on"  # Boris's line never came
    # The mute is kept: a new socket's history leaves him out and lists him as muted.
    again = TableClient(users[0], table.pk, snapshots)
    await again.connect()
    assert [m["text"] for m in again.chat_history["messages"]] == ["and I speak on"]
    assert again.chat_history["muted"] == [users[1].username]
    assert before["id"] not in [m["id"] for m in again.chat_history["messages"]]

    await again.send({"type": "chat_mute", "nickname": users[1].username, "muted": False})
    assert (await anna.receive("chat_mutes"))["muted"] == []  # every socket of hers hears it
    await boris.send({"type": "chat", "text": "heard again"})
    assert (await anna.receive("chat"))["text"] == "heard again"
    for client in (anna, boris, watcher, boris_again, again):
        await client.close()


async def test_a_report_goes_to_staff_who_mute_the_author_everywhere_for_a_while(
    snapshots, many_messages
):
    users = await players(2)
    staff = await db(tests_players.create_player)(is_staff=True)
    table = await open_table(users)
    anna, boris = await connect(users, table, snapshots)
    await boris.send({"type": "chat", "text": "rude words"})
    rude = await anna.receive("chat")
    for _twice in range(2):  # a double click reports once
        await anna.send({"type": "chat_report", "message": rude["id"]})
        assert (await anna.receive("chat_reported"))["message"] == rude["id"]
    report = await db(ChatReport.objects.get)()
    assert (report.message_id, report.reporter_id, report.status) == (
        rude["id"],
        users[0].pk,
        "open",
    )

    with pytest.raises(ValidationError):  # staff give a reason, or nothing happens
        await db(chat.chat_ban)(staff=staff, report_id=report.pk, hours=24, reason=" ")
    assert not await db(ChatBan.objects.exists)()
    ban = await db(chat.chat_ban)(staff=staff, report_id=report.pk, hours=24, reason="insults")
    await db(report.refresh_from_db)()
    assert (report.status, report.handled_by_id) == ("muted", staff.pk)
    action = await db(StaffAction.objects.get)()
    assert (action.action, action.player_id, action.reason) == (
        "games.chat_mute",
        users[1].pk,
        "insults",
    )
    assert action.details["hours"] == 24

    await boris.send({"type": "chat", "text": "more rude words"})
    error = await boris.receive("error")
    assert error["code"] == "chat_muted"
    assert f"{timezone.localtime(ban.until):%d.%m.%Y %H:%M %Z}" in error["message"]
    await anna.nothing_more()
    again = TableClient(users[1], table.pk, snapshots)
    await again.connect()
    assert again.chat_history["muted_until"] == ban.until.isoformat()
    for client in (anna, boris, again):
        await client.close()
