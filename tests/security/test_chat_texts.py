"""Chat texts an attacker shapes: a lone surrogate, line breaks, and text that shows nothing."""

from __future__ import annotations

import pytest

from games.models import ChatMessage
from tests.games.conftest import snapshots  # noqa: F401 - fixture
from tests.games.test_chat import (  # noqa: F401 - fixture
    connect,
    many_messages,
    messages_count,
    open_table,
    players,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

SHOWN = [
    ("a\ud800b", "ab"),
    ("line one\nline two", "line one line two"),
    ("  one \r\n\t two\u2028three ", "one two three"),
    ("зеро\u200b\u200d ширины", "зеро ширины"),
    ("e\u0301tude", "e\u0301tude"),  # a combining mark on a letter shows
]
BLANK = [
    "\u3164",
    "\u115f\u1160",
    "\uffa0 \u3164 \u2800",
    "\u0301\u0302",  # combining marks with nothing to sit on
    "\ud800",
    "\u200b \u00a0 \u2800",
]


async def test_chat_text_is_cleaned_or_refused_and_never_fails(snapshots, many_messages):  # noqa: F811
    users = await players(2)
    table = await open_table(users)
    anna, boris = await connect(users, table, snapshots)

    for sent, shown in SHOWN:
        await anna.send({"type": "chat", "text": sent})
        assert (await boris.receive("chat"))["text"] == shown, repr(sent)
    stored = [message.text async for message in ChatMessage.objects.order_by("id")]
    assert stored == [shown for _sent, shown in SHOWN]

    before = await messages_count()
    for sent in BLANK:
        await anna.send({"type": "chat", "text": sent})
        error = await anna.receive("error")
        assert error["code"] == "chat_empty", repr(sent)
    assert await messages_count() == before
    await boris.nothing_more()
    for client in (anna, boris):
        await client.close()
