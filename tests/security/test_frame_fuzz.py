"""Thousands of random and malformed frames against a live table and lobby (hypothesis): each
is answered as docs/protocol.md says, nothing changes, and an honest game at another table
finishes alongside (docs/security.md)."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection

from games import consumers
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import ChatMessage, Game
from tests.security.conftest import open_socket, open_table, players, receive
from tests.servers import BASE_DIR, LiveServer, server_env
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db(transaction=True)

FRAMES = 2500
# The chat's messages and the frames that answer them when they are taken.
CHAT = {
    "chat": "chat",
    "chat_phrase": "chat",
    "chat_mute": "chat_mutes",
    "chat_report": "chat_reported",
}
db = database_sync_to_async

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
cards = st.sampled_from(["6S", "AH", "TC", "QD", "9H"]) | st.text(max_size=4) | st.integers()
actions = st.fixed_dictionaries(
    {"type": st.sampled_from(["attack", "defend", "transfer", "take", "pass", "resign", ""])},
    optional={
        "cards": st.lists(cards, max_size=7) | json_values,
        "attack": cards,
        "card": cards,
        "seat": st.integers(-1, 7),
    },
)
near_valid = st.fixed_dictionaries(
    {"type": st.sampled_from(["act", "sync", "ping", "join", "state", "ACT", "", *CHAT])},
    optional={
        "action": actions | json_values,
        "version": st.integers(-3, 2**70) | st.booleans() | st.text(max_size=5) | st.none(),
        "seat": st.integers(-1, 7),
        "game": st.integers(-1, 2**40) | json_values,
        "text": st.text(max_size=260) | json_values,
        "phrase": st.sampled_from(["good_luck", "thanks", "curse", ""]) | json_values,
        "nickname": st.text(max_size=12) | json_values,
        "muted": st.booleans() | json_values,
        "message": st.integers(-1, 2**40) | json_values,
    },
)
frames = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200),
    json_values.map(json.dumps),
    near_valid.map(json.dumps),
    near_valid.map(json.dumps).map(str.encode),
    st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth),
    st.integers(1, 600).map(lambda depth: '{"type":"act","action":' * depth + "{}" + "}" * depth),
    st.integers(4097, 9000).map(lambda size: json.dumps({"type": "ping", "pad": "a" * size})),
)


@pytest.fixture(scope="module")
def fast_server(django_db_setup, django_db_blocker) -> Iterator[LiveServer]:
    """The platform with message limits far above the fuzzer's pace (the limits have tests)."""
    with django_db_blocker.unblock():
        env = server_env(SOCKET_RATE_PER_SECOND="100000", SOCKET_ADDRESS_RATE_PER_SECOND="100000")
    live = LiveServer(env, BASE_DIR / "test-artifacts" / "security-fuzz.log")
    live.start()
    try:
        yield live
    finally:
        live.close()


def expected_reply(frame: str | bytes, messages: dict, version: int) -> tuple[set[str], str | None]:
    """The answers the server may give: an error (with its code when the frame itself is bad),
    a pong, a state (or `unchanged` for a sync at the version shown), or for a chat message its
    effect or a refusal."""
    text = frame if isinstance(frame, str) else None
    data = frame if isinstance(frame, bytes) else None
    try:
        message = consumers.parse_message(text, data, messages)
    except consumers.BadMessage as error:
        return {"error"}, error.code
    if message["type"] == "ping":
        return {"pong"}, None
    if message["type"] == "sync":
        return {"state", "unchanged"}, None
    if message["type"] in CHAT:
        return {CHAT[message["type"]], "error"}, None
    return {"error"}, None  # an act: stale, or not this seat's move, or malformed: some error


def safe(frame: str | bytes, version: int) -> str | bytes:
    """The frame, unless it is a well-formed move at the current version: that could be legal."""
    try:
        message = json.loads(frame)
    except (ValueError, RecursionError):
        return frame
    if (
        isinstance(message, dict)
        and message.get("type") == "act"
        and message.get("version") == version
    ):
        return json.dumps({**message, "version": version + 1})
    return frame


async def exchange(
    socket: ClientConnection, frame: str | bytes, wanted: tuple[set[str], str | None]
):
    await socket.send(frame)
    kinds, code = wanted
    while True:
        message = await receive(socket, timeout=20)
        if message["type"] in kinds and (code is None or message.get("code") == code):
            return message
        # Only the table's or the lobby's own updates may come in between, never another answer.
        assert message["type"] in {"state", "table", "table_removed", "chat_mutes"}, (
            frame,
            wanted,
            message,
        )


async def honest_game(server: LiveServer, users: list, table) -> Game:
    """Two players move through their own sockets until the game ends, each once his socket
    has shown him the game's version."""
    sockets = [await open_socket(server, user, f"/ws/table/{table.pk}/") for user in users]
    shown = [(await receive(socket_, "state"))["version"] for socket_ in sockets]

    async def until_shown(seat: int, version: int) -> None:
        while shown[seat] < version:
            message = await receive(sockets[seat], timeout=20)
            # The fuzzers chat at their own table: none of it may reach this one.
            assert message["type"] not in {"chat", "chat_mutes"}, message
            if message["type"] == "state":
                shown[seat] = message["version"]

    while True:
        game = await db(Game.objects.get)(table=table)
        if game.status != Game.Status.PLAYING:
            break
        engine = EngineGame.from_dict(game.state)
        seat = engine.waiting_for[0]
        action = choose_action(engine, seat)
        await until_shown(seat, game.version)
        await sockets[seat].send(
            json.dumps({"type": "act", "action": action, "version": game.version})
        )
        await until_shown(seat, game.version + 1)
    for socket_ in sockets:
        await socket_.close()
    return game


def test_random_frames_change_nothing_and_honest_play_goes_on(fast_server):
    loop = asyncio.new_event_loop()
    run = loop.run_until_complete
    try:
        fuzzers = run(players(2))
        honest = run(players(2))
        honest_before = sum(user_balance(user=user) for user in honest)
        table = run(open_table(fuzzers))
        other_table = run(open_table(honest))
        # The fuzzers' stakes are held in their game's bank from here on.
        before = {user.pk: user_balance(user=user) for user in fuzzers}
        game = Game.objects.get(table=table)
        table_socket = run(open_socket(fast_server, fuzzers[0], f"/ws/table/{table.pk}/"))
        lobby_socket = run(open_socket(fast_server, fuzzers[0], "/ws/lobby/"))
        run(receive(table_socket, "state"))
        run(receive(lobby_socket, "tables"))
        honest_task = loop.create_task(honest_game(fast_server, honest, other_table))
        sent = {"table": 0, "lobby": 0}

        @settings(
            max_examples=FRAMES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(frame=frames, to_lobby=st.booleans())
        def answered(frame, to_lobby):
            frame = safe(frame, game.version)
            socket_, messages = (
                (lobby_socket, consumers.LOBBY_MESSAGES)
                if to_lobby
                else (table_socket, consumers.TABLE_MESSAGES)
            )
            run(exchange(socket_, frame, expected_reply(frame, messages, game.version)))
            sent["lobby" if to_lobby else "table"] += 1

        answered()
        finished = run(asyncio.wait_for(honest_task, 300))
        # Both sockets are still open and answer.
        for socket_ in [table_socket, lobby_socket]:
            run(exchange(socket_, json.dumps({"type": "ping"}), ({"pong"}, None)))
            run(socket_.close())
    finally:
        loop.close()
    assert sum(sent.values()) >= FRAMES / 2 and min(sent.values()) > 0
    assert finished.status == Game.Status.FINISHED
    game.refresh_from_db()
    assert game.version == 0 and game.status == Game.Status.PLAYING
    assert {user.pk: user_balance(user=user) for user in fuzzers} == before
    # The honest game paid its whole bank back to its players (no commission by default).
    assert sum(user_balance(user=user) for user in honest) == honest_before
    call_command("ledger_check", stdout=io.StringIO())
    written = list(ChatMessage.objects.values_list("table_id", "text", "phrase"))
    assert all(table_id == table.pk for table_id, _text, _phrase in written)
    assert all(len(text) <= 200 and "\n" not in text for _table, text, _phrase in written)
