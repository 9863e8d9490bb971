"""WebSockets: the lobby list and the live table (protocol in docs/protocol.md).

Consumers check the shape and the rate of messages; every decision is made by the services in
one sync call. A table broadcast only says "changed, version N": each connection then builds its
own user's view, so no message ever carries another seat's cards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation.trans_real import parse_accept_lang_header

from durak_site.db import database_sync_to_async
from games import presence, ratelimit, selectors, services
from games.errors import GameError
from games.models import Game, Table

MAX_FRAME_BYTES = 4096
RATE_PER_SECOND = 10.0
RATE_BURST = 20.0
# All of one user's sockets together, so that opening more of them buys no more messages.
USER_RATE_PER_SECOND = 20.0
USER_RATE_BURST = 40.0
# Every socket's arrival and departure refreshes the others at its table: a cap per user keeps
# one user from multiplying that work.
SOCKETS_PER_USER = 8
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY_SOCKETS = 4429
# The fields each client message must have besides "type", with their JSON types.
TABLE_MESSAGES: dict[str, dict[str, type]] = {
    "act": {"action": dict, "version": int},
    "sync": {"version": int},
    "back": {},
    "ping": {},
}
LOBBY_MESSAGES: dict[str, dict[str, type]] = {"ping": {}}
# Refusals of a message itself, before any command runs; the commands' own are in games.errors.
PROTOCOL_ERRORS: dict[str, Promise] = {
    "invalid_json": _("The message is not valid JSON."),
    "not_an_object": _("The message must be a JSON object."),
    "unknown_type": _("Unknown message type."),
    "bad_message": _("The message has missing, extra or wrongly typed fields."),
    "frame_too_large": _("The message is too large."),
    "rate_limited": _("Too many messages; slow down."),
}


class JsonSocket(AsyncWebsocketConsumer):
    """JSON messages with one error shape, token buckets per connection and per user, a cap on
    each user's open sockets, and a language."""

    messages: dict[str, dict[str, type]] = {}
    claimed = False
    heartbeat: asyncio.Task | None = None

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = _language(self.scope)
        self.tokens = RATE_BURST
        self.refilled_at = time.monotonic()
        if self.user is None or not self.user.is_authenticated:
            await self.refuse(CLOSE_UNAUTHENTICATED)
            return
        if not await sync_to_async(presence.claim, thread_sensitive=False)(
            self.user.pk, self.channel_name, SOCKETS_PER_USER
        ):
            await self.refuse(CLOSE_TOO_MANY_SOCKETS)
            return
        self.claimed = True
        self.heartbeat = asyncio.create_task(self.keep_alive())
        await self.open()

    async def open(self) -> None:
        raise NotImplementedError

    async def disconnect(self, code: int) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.heartbeat
        if self.claimed:
            await sync_to_async(presence.unclaim, thread_sensitive=False)(
                self.user.pk, self.channel_name
            )

    async def keep_alive(self) -> None:
        # Runs as long as this process does: if it dies, its sockets stop counting by themselves.
        while True:
            await asyncio.sleep(presence.HEARTBEAT_SECONDS)
            await self.refresh()

    async def refresh(self) -> None:
        await sync_to_async(presence.refresh, thread_sensitive=False)(
            self.user.pk, self.channel_name
        )

    async def refuse(self, code: int) -> None:
        # Accept first: a close code only reaches the client on an accepted socket.
        await self.accept()
        await self.close(code=code)

    async def send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload, ensure_ascii=False, separators=(",", ":")))

    async def send_error(self, code: str, message: Any = None) -> None:
        with translation.override(self.language):
            text = str(message if message is not None else PROTOCOL_ERRORS[code])
        await self.send_json({"type": "error", "code": code, "message": text})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.take_token() or not await sync_to_async(ratelimit.take, thread_sensitive=False)(
            self.user.pk, rate=USER_RATE_PER_SECOND, burst=USER_RATE_BURST
        ):
            await self.send_error("rate_limited")
            return
        raw = text_data.encode() if text_data is not None else bytes_data or b""
        if len(raw) > MAX_FRAME_BYTES:
            await self.send_error("frame_too_large")
            return
        try:
            message = json.loads(raw)
        except ValueError:
            await self.send_error("invalid_json")
            return
        if not isinstance(message, dict):
            await self.send_error("not_an_object")
            return
        kind = message.get("type")
        fields = self.messages.get(kind) if isinstance(kind, str) else None
        if fields is None:
            await self.send_error("unknown_type")
            return
        if message.keys() != {"type", *fields} or not all(
            _has_type(message[name], wanted) for name, wanted in fields.items()
        ):
            await self.send_error("bad_message")
            return
        await getattr(self, f"on_{kind}")(message)

    def take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RATE_BURST, self.tokens + (now - self.refilled_at) * RATE_PER_SECOND)
        self.refilled_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def on_ping(self, message: dict) -> None:
        await self.send_json({"type": "pong"})


class LobbyConsumer(JsonSocket):
    """``/ws/lobby/``: the open public tables, live."""

    messages = LOBBY_MESSAGES

    async def open(self) -> None:
        await self.channel_layer.group_add(selectors.LOBBY_GROUP, self.channel_name)
        await self.accept()
        tables = await database_sync_to_async(selectors.table_list_open)()
        await self.send_json({"type": "tables", "tables": tables})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(selectors.LOBBY_GROUP, self.channel_name)
        await super().disconnect(code)

    async def lobby_table(self, event: dict) -> None:
        await self.send_json({"type": "table", "table": event["table"]})

    async def lobby_removed(self, event: dict) -> None:
        await self.send_json({"type": "table_removed", "id": event["id"]})


class TableConsumer(JsonSocket):
    """``/ws/table/<id>/``: the table as this user may see it, after every change."""

    messages = TABLE_MESSAGES
    joined = False

    async def open(self) -> None:
        self.table_id = self.scope["url_route"]["kwargs"]["table_id"]
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        invite_code = query.get("invite", [""])[0]
        if not await database_sync_to_async(_table_open)(
            self.table_id, self.user, invite_code, self.channel_name
        ):
            await self.refuse(CLOSE_NOT_FOUND)
            return
        self.joined = True
        self.group = selectors.table_group(self.table_id)
        # Joined before the first state is read, so no later change can be missed.
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_state()

    async def disconnect(self, code: int) -> None:
        await super().disconnect(code)  # stops the heartbeat first
        if self.joined:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await database_sync_to_async(services.presence_disconnect)(
                table_id=self.table_id, user=self.user, connection=self.channel_name
            )

    async def refresh(self) -> None:
        await super().refresh()
        if self.joined:
            await database_sync_to_async(services.presence_heartbeat)(
                table_id=self.table_id, user=self.user, connection=self.channel_name
            )

    async def send_state(self) -> None:
        state = await database_sync_to_async(_table_state)(self.table_id, self.user)
        await self.send_json({"type": "state", **state})

    async def table_changed(self, event: dict) -> None:
        await self.send_state()

    async def on_sync(self, message: dict) -> None:
        await self.send_state()

    async def on_back(self, message: dict) -> None:
        try:
            await database_sync_to_async(services.seat_back)(table_id=self.table_id, user=self.user)
        except GameError as error:
            await self.send_error(error.code, error.message)

    async def on_act(self, message: dict) -> None:
        try:
            await database_sync_to_async(_act)(
                self.table_id, self.user, message["action"], message["version"]
            )
        except GameError as error:
            await self.send_error(error.code, error.message)
            if error.code == "stale_version":
                await self.send_state()


def _table_open(table_id: int, user, invite_code: str, connection: str) -> bool:
    table = Table.objects.filter(pk=table_id).first()
    # A private table the user may not see does not exist for him, as on its page.
    if table is None or not selectors.table_visible_to(
        table=table, user=user, invite_code=invite_code
    ):
        return False
    services.presence_connect(table_id=table_id, user=user, connection=connection)
    return True


def _table_state(table_id: int, user) -> dict[str, Any]:
    return selectors.table_state_for(table=Table.objects.get(pk=table_id), user=user)


def _act(table_id: int, user, action: dict, version: int) -> None:
    game_id = (
        Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING)
        .values_list("pk", flat=True)
        .first()
    )
    if game_id is None:
        raise GameError("no_game")
    services.game_apply_action(game_id=game_id, user=user, action=action, expected_version=version)


def _has_type(value: object, wanted: type) -> bool:
    if wanted is int:  # JSON true/false are not versions
        return type(value) is int and value >= 0
    return isinstance(value, wanted)


def _language(scope: dict) -> str:
    """The user's language: the language cookie, else the browser's, else the default."""
    candidates = [scope.get("cookies", {}).get(settings.LANGUAGE_COOKIE_NAME, "")]
    for name, value in scope.get("headers", []):
        if name == b"accept-language":
            candidates += [lang for lang, _q in parse_accept_lang_header(value.decode("latin-1"))]
    for candidate in candidates:
        try:
            return translation.get_supported_language_variant(candidate)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
