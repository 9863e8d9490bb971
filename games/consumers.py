"""WebSockets: the lobby list and the live table (protocol in docs/protocol.md).

Consumers check the shape and the rate of messages; every decision is made by the services in
one sync call. A table's states are built once per change, each sent only to the sockets of the
user who may see it (``games.broadcast``); a socket forwards them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

from durak_site.backends import rate_limits
from durak_site.ops import json_logs as site_logging
from durak_site.ops import metrics
from durak_site.sockets import handshake_pacing, open_limits, outage_closes, session_closes
from durak_site.sockets.db_threads import database_sync_to_async
from durak_site.web.client_source import address_of_scope, client_of_scope
from games import broadcast, presence, services
from games.errors import ERROR_MESSAGES, PROTOCOL_ERRORS, GameError
from games.metrics import MOVE_SECONDS, MOVES
from games.models import Game
from games.selectors import lobby, tables

MAX_FRAME_BYTES = 4096
# The deepest JSON a valid message has: the message, its action, the action's card list.
MAX_DEPTH = 3
RATE_PER_SECOND = settings.SOCKET_RATE_PER_SECOND
RATE_BURST = 2 * RATE_PER_SECOND
# All of one user's sockets together, so that opening more of them buys no more messages.
USER_RATE_PER_SECOND = 2 * RATE_PER_SECOND
USER_RATE_BURST = 2 * USER_RATE_PER_SECOND
# All sockets of one client address together, so that more users behind it buy no more either.
ADDRESS_RATE_PER_SECOND = settings.SOCKET_ADDRESS_RATE_PER_SECOND
ADDRESS_RATE_BURST = 2 * ADDRESS_RATE_PER_SECOND
# A socket that goes on sending after it was told to slow down is closed: only its first refused
# message is answered, and the FLOOD_STRIKES-th closes it unless it paused in between, if it is
# over its own limit. One that keeps to its own while its user's or address's budget is spent is
# only refused: closed, it would come back, and opening costs far more than a refusal.
FLOOD_STRIKES = 20
# Opening a socket costs the server far more than a message: opens are rate-limited per client
# address and per session before the login is read (durak_site.sockets.open_limits), and per
# user after it.
OPENS_PER_SECOND_USER = open_limits.OPENS_PER_SECOND_SESSION
OPENS_BURST_USER = open_limits.OPENS_BURST_SESSION
# How long a socket trusts its last session check; logouts, new passwords and deactivations
# close sockets at once through the channel layer, this bounds every other session end.
SESSION_RECHECK_SECONDS = 2.0
# Every socket's arrival and departure refreshes the others at its table: a cap per user keeps
# one user from multiplying that work.
SOCKETS_PER_USER = 8
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_FLOODING = 4408
CLOSE_TOO_MANY_SOCKETS = 4429
CLOSE_OPENED_TOO_OFTEN = open_limits.CLOSE_OPENED_TOO_OFTEN
# The fields each client message must have besides "type", with their JSON types.
TABLE_MESSAGES: dict[str, dict[str, type]] = {
    "act": {"action": dict, "version": int},
    "sync": {"version": int},
    "back": {},
    "rematch": {"game": int},
    "chat": {"text": str},
    "chat_phrase": {"phrase": str},
    "chat_mute": {"nickname": str, "muted": bool},
    "chat_report": {"message": int},
    "visibility": {"visible": bool},
    "ping": {},
}
LOBBY_MESSAGES: dict[str, dict[str, type]] = {"ping": {}}
# The fields a message may have besides those, by message type.
OPTIONAL_FIELDS: dict[str, dict[str, type]] = {"sync": {"game": int}}
# Cleanups still running after their socket's handler ended (kept so they are not collected).
_releases: set[asyncio.Task] = set()
logger = logging.getLogger(__name__)


class JsonSocket(AsyncWebsocketConsumer):
    """JSON messages with one error shape, token buckets per connection, per user and per client
    address, a cap on each user's open sockets and on how often they are opened, a session that
    must stay valid, and a language.

    Whatever a socket claims (its slot in the user's count, its heartbeat, its groups) is given
    back in ``release``, which runs however the handler ends: closed by the client, failed, or
    cancelled by the server.
    """

    messages: dict[str, dict[str, type]] = {}
    # The socket's kind in the metrics of open sockets.
    kind = ""
    # Messages whose handler goes to the database anyway (through ``command``): a due session
    # check is made in that same call instead of a call of its own.
    commands: frozenset[str] = frozenset()
    claimed = False
    counted = False
    closed_for_flooding = False
    heartbeat: asyncio.Task | None = None
    strikes = 0
    session_checked_at = 0.0
    received_at = 0.0

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.heartbeat is not None:
                self.heartbeat.cancel()
            if self.counted:
                _count_socket(self.kind, -1)
            # Shielded: the server cancels a slow handler again and again until it is done.
            release = asyncio.ensure_future(self.release())
            _releases.add(release)
            release.add_done_callback(_releases.discard)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(release)

    async def dispatch(self, message: dict) -> None:
        # As Channels' own, without its hop to a thread to close stale database connections
        # before every message: all database work here runs through database_sync_to_async,
        # whose threads do that around each call, and most messages touch no database.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = _language(self.scope)
        self.tokens = RATE_BURST
        self.refilled_at = time.monotonic()
        # The handshake is answered before any work, which then waits its turn (refusals are
        # close codes either way): a crowd opening at once must not outlive the handshake
        # timeout.
        await self.accept()
        self.counted = True
        _count_socket(self.kind, 1)
        async with handshake_pacing.opening_slots():
            await self.start()

    async def start(self) -> None:
        if self.user is None or not self.user.is_authenticated:
            await self.refuse(CLOSE_UNAUTHENTICATED)
            return
        self.message_buckets = (
            rate_limits.Bucket(self.user.pk, USER_RATE_PER_SECOND, USER_RATE_BURST),
            rate_limits.Bucket(
                f"address:{address_of_scope(self.scope) or 'unknown'}",
                ADDRESS_RATE_PER_SECOND,
                ADDRESS_RATE_BURST,
            ),
        )
        if not await _take(f"open:user:{self.user.pk}", OPENS_PER_SECOND_USER, OPENS_BURST_USER):
            await self.refuse(CLOSE_OPENED_TOO_OFTEN)
            return
        if not await sync_to_async(presence.claim, thread_sensitive=False)(
            self.user.pk, self.channel_name, SOCKETS_PER_USER
        ):
            await self.refuse(CLOSE_TOO_MANY_SOCKETS)
            return
        self.claimed = True
        site_logging.bind(user=self.user.pk)
        self.session_checked_at = time.monotonic()
        self.heartbeat = asyncio.create_task(self.keep_alive())
        await self.channel_layer.group_add(
            session_closes.user_group(self.user.pk), self.channel_name
        )
        session_key = self.scope["session"].session_key
        await self.channel_layer.group_add(
            session_closes.session_group(session_key), self.channel_name
        )
        await self.open()

    async def open(self) -> None:
        raise NotImplementedError

    async def release(self) -> None:
        if self.claimed:
            # The slot first: it is what would lock the user out if anything below failed.
            await sync_to_async(presence.unclaim, thread_sensitive=False)(
                self.user.pk, self.channel_name
            )
            await self.channel_layer.group_discard(
                session_closes.user_group(self.user.pk), self.channel_name
            )
            await self.channel_layer.group_discard(
                session_closes.session_group(self.scope["session"].session_key), self.channel_name
            )

    async def keep_alive(self) -> None:
        # A task of the handler: it ends with it, so only a live socket keeps its slot.
        while True:
            await asyncio.sleep(presence.HEARTBEAT_SECONDS)
            try:
                await self.refresh()
            except Exception:
                # Redis or the database is briefly away: the next beat tries again.
                logger.warning("socket heartbeat failed; retrying", exc_info=True)

    async def refresh(self) -> None:
        await sync_to_async(presence.refresh, thread_sensitive=False)(
            self.user.pk, self.channel_name
        )

    async def refuse(self, code: int) -> None:
        metrics.refused(code)
        await self.close(code=code)

    async def session_revoked(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def session_check(self, event: dict) -> None:
        await self.session_still_valid(now=True)

    async def session_still_valid(self, *, now: bool = False) -> bool:
        """Check the session (on a message at most every SESSION_RECHECK_SECONDS, at once when
        told to); close the socket if it has ended."""
        checked_at = time.monotonic()
        if not now and not self.session_check_due(checked_at):
            return True
        if not await database_sync_to_async(session_closes.session_is_valid)(
            self.scope["session"].session_key, self.user.pk
        ):
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return False
        self.session_checked_at = checked_at
        return True

    def session_check_due(self, now: float) -> bool:
        return now - self.session_checked_at >= SESSION_RECHECK_SECONDS

    async def command(self, work, /, *args, **kwargs) -> Any:
        """Run a message's database work and return its result. When the session is due for
        its check, the check comes first in the same call, and an ended session stops the work
        before it starts (SessionEnded, which closes the socket)."""
        checked_at = time.monotonic()
        due = self.session_check_due(checked_at)
        result = await database_sync_to_async(_session_checked)(
            due, self.scope["session"].session_key, self.user.pk, work, args, kwargs
        )
        if due:
            self.session_checked_at = checked_at
        return result

    async def send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=broadcast.encode(payload))

    async def send_error(self, code: str, message: Any = None) -> None:
        with translation.override(self.language):
            text = str(message if message is not None else PROTOCOL_ERRORS[code])
        await self.send_json({"type": "error", "code": code, "message": text})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        self.received_at = time.perf_counter()
        if not self.take_token():
            await self.refuse_message(over_own_limit=True)
            return
        if not await rate_limits.take_all_async(*self.message_buckets):
            await self.refuse_message(over_own_limit=False)
            return
        if self.tokens >= RATE_BURST - 1:  # the client paused long enough to refill its bucket
            self.strikes = 0
        try:
            message = parse_message(text_data, bytes_data, self.messages)
        except BadMessage as error:
            await self.send_error(error.code)
            return
        if message["type"] not in self.commands and not await self.session_still_valid():
            return
        try:
            await getattr(self, f"on_{message['type']}")(message)
        except SessionEnded:
            await self.close(code=CLOSE_UNAUTHENTICATED)
        except outage_closes.BACKEND_ERRORS:
            raise  # the socket closes with CLOSE_UNAVAILABLE: the client reconnects and resyncs
        except Exception:
            # One bad message must not take the socket (and what it holds) down with it.
            logger.exception("socket message failed")
            await self.send_error("server_error")

    async def refuse_message(self, *, over_own_limit: bool) -> None:
        """Answer the first message over a limit; close the socket if the client goes on over
        its own."""
        self.strikes += 1
        metrics.refused("rate_limited")
        if self.strikes == 1:
            await self.send_error("rate_limited")
        elif over_own_limit and self.strikes >= FLOOD_STRIKES:
            if not self.closed_for_flooding:  # messages read before the close strike again
                self.closed_for_flooding = True
                metrics.refused(CLOSE_FLOODING)
            await self.close(code=CLOSE_FLOODING)

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

    async def chat_mutes(self, event: dict) -> None:
        """The user muted or unmuted a player on another socket; only table sockets care."""

    async def friend_invite(self, event: dict) -> None:
        """A friend invites the user to his table: every page with a socket shows it."""
        await self.send_json({"type": "invite", **event["invite"]})


class LobbyConsumer(JsonSocket):
    """``/ws/lobby/``: the open public tables, live."""

    messages = LOBBY_MESSAGES
    kind = "lobby"

    async def open(self) -> None:
        await self.channel_layer.group_add(lobby.LOBBY_GROUP, self.channel_name)
        entries = await database_sync_to_async(lobby.table_list_open)()
        await self.send_json({"type": "tables", "tables": entries})

    async def release(self) -> None:
        await self.channel_layer.group_discard(lobby.LOBBY_GROUP, self.channel_name)
        await super().release()

    async def lobby_table(self, event: dict) -> None:
        await self.send_json({"type": "table", "table": event["table"]})

    async def lobby_removed(self, event: dict) -> None:
        await self.send_json({"type": "table_removed", "id": event["id"]})


class TableConsumer(JsonSocket):
    """``/ws/table/<id>/``: the table as this user may see it, after every change.

    The socket forwards the states it is sent (``games.broadcast``) and keeps the last one with
    its whole log, as text, so ``sync`` costs nothing, and a move that state already rules out
    (stale, a spectator's, or of a seat with nothing to do) is refused without the database. It
    reads the database only to open, to catch up when a state shows it missed one, and for the
    commands themselves.
    """

    messages = TABLE_MESSAGES
    kind = "table"
    commands = frozenset(TABLE_MESSAGES) - {"sync", "ping", "visibility"}
    joined = False
    # The players whose chat messages this user does not want to read.
    muted: frozenset[int] = frozenset()
    # The last state sent with the whole log, and the key that orders states (broadcast).
    held: Held | None = None
    key: tuple = ()
    forwarder: asyncio.Task | None = None

    async def open(self) -> None:
        self.table_id = self.scope["url_route"]["kwargs"]["table_id"]
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        invite_code = query.get("invite", [""])[0]
        # States and chat are handled one at a time, in the order they came (``post``).
        self.turn = asyncio.Lock()
        self.posted: asyncio.Queue[dict] = asyncio.Queue()
        self.local = await broadcast.local_sockets()
        self.connection = self.local.connection(self.channel_name)
        if not await database_sync_to_async(services.presence_open)(
            table_id=self.table_id,
            user=self.user,
            invite_code=invite_code,
            connection=self.connection,
        ):
            await self.refuse(CLOSE_NOT_FOUND)
            return
        self.joined = True
        site_logging.bind(table=self.table_id)
        # Counted in presence and listed here before the first state is read, so no later
        # change can be missed.
        self.local.add(self.table_id, self.user.pk, self)
        self.forwarder = asyncio.create_task(self.forward_posted())
        history = await database_sync_to_async(services.chat_history)(
            table_id=self.table_id, user=self.user
        )
        self.muted = frozenset(history.pop("muted_ids"))
        await self.send_json(history)
        async with self.turn:
            await self.send_whole_state()

    async def release(self) -> None:
        if self.forwarder is not None:
            self.forwarder.cancel()
        await super().release()
        if self.joined:
            self.local.discard(self.table_id, self.user.pk, self)
            await database_sync_to_async(services.presence_disconnect)(
                table_id=self.table_id, user=self.user, connection=self.connection
            )

    async def refresh(self) -> None:
        await super().refresh()
        if self.joined:
            await database_sync_to_async(services.presence_heartbeat)(
                table_id=self.table_id, user=self.user, connection=self.connection
            )

    def post(self, body: dict) -> None:
        """A state or chat message of this socket's table, from this process or another."""
        self.posted.put_nowait(body)

    async def forward_posted(self) -> None:
        """Handle what was posted, in order. A failure (a backend outage while the socket
        catches up) closes the socket, so that no state is silently missed: the client
        reconnects and reads the table afresh."""
        while True:
            body = await self.posted.get()
            try:
                async with self.turn:
                    await getattr(self, get_handler_name(body))(body)
            except outage_closes.BACKEND_ERRORS:
                logger.warning("table socket could not catch up; closing it", exc_info=True)
            except Exception:
                logger.exception("table socket could not handle a state; closing it")
            else:
                continue
            await self.close(code=outage_closes.CLOSE_UNAVAILABLE)
            return

    async def send_whole_state(self) -> None:
        """Read this user's state with its log from the database and send it."""
        at = broadcast.stamp()  # before the read: a later broadcast holds newer data
        held = await database_sync_to_async(_table_state)(self.table_id, self.user)
        self.held, self.key = held, (held.game_id, held.version, at)
        site_logging.bind(game=held.game_id)
        await self.send(text_data=held.frame())

    async def table_state(self, event: dict) -> None:
        await self.forward(event)

    async def table_watch(self, event: dict) -> None:
        if self.user.pk not in event["seated"]:  # a seated user has a state of his own
            await self.forward(event)

    async def forward(self, event: dict) -> None:
        """Send a broadcast state on, unless one as new was sent already."""
        key = tuple(event["key"])
        if key <= self.key:
            return
        since = event["from"]
        held = self.held
        if since and (held is None or held.game_id != key[0] or held.version != since):
            # A change never reached this socket: the moves sent would leave a gap in the log.
            await self.send_whole_state()
            return
        log = held.events if since else deque(maxlen=tables.STATE_EVENTS)
        log.extend(event["events"])
        self.held = Held(
            key[0], event["playing"], key[1], event["seat"], event["may_act"], event["head"], log
        )
        self.key = key
        await self.send(text_data=broadcast.state_frame(event["head"], event["events"], since))

    async def on_sync(self, message: dict) -> None:
        async with self.turn:
            held = self.held
            version, game_id = message["version"], message.get("game", held.game_id)
            if version == held.version and game_id == held.game_id:
                await self.send_json({"type": "unchanged", "version": held.version})
            else:
                await self.send(text_data=held.frame())

    async def on_visibility(self, message: dict) -> None:
        """The page was hidden or shown: a player who does not see his table gets pushes."""
        await sync_to_async(presence.set_visible, thread_sensitive=False)(
            self.table_id, self.user.pk, self.connection, message["visible"]
        )

    async def on_back(self, message: dict) -> None:
        try:
            await self.command(services.seat_back, table_id=self.table_id, user=self.user)
        except GameError as error:
            await self.send_error(error.code, error.message)

    async def table_chat(self, event: dict) -> None:
        if event["author"] not in self.muted:
            await self.send_json({"type": "chat", "table": self.table_id, **event["message"]})

    async def chat_mutes(self, event: dict) -> None:
        self.muted = frozenset(event["muted_ids"])
        await self.send_json({"type": "chat_mutes", "muted": event["muted"]})

    async def on_chat(self, message: dict) -> None:
        await self.chat_command(services.chat_post, text=message["text"])

    async def on_chat_phrase(self, message: dict) -> None:
        await self.chat_command(services.chat_post, phrase=message["phrase"])

    async def on_chat_mute(self, message: dict) -> None:
        mutes = await self.chat_command(
            services.chat_mute, nickname=message["nickname"], muted=message["muted"]
        )
        if mutes is not None:  # every socket of the user, here and at his other tables
            await self.channel_layer.group_send(
                session_closes.user_group(self.user.pk), {**mutes, "type": "chat.mutes"}
            )

    async def on_chat_report(self, message: dict) -> None:
        if await self.chat_command(services.chat_report, message_id=message["message"]):
            await self.send_json({"type": "chat_reported", "message": message["message"]})

    async def chat_command(self, command, **arguments) -> Any:
        """Run a chat command for this user at this table, send what it sends; its result, or
        None after answering its refusal."""
        try:
            with broadcast.collected() as outbox:
                result = await self.command(
                    command, table_id=self.table_id, user=self.user, **arguments
                )
        except GameError as error:
            await self.send_error(error.code, error.message)
            return None
        await broadcast.send(outbox)
        return result

    async def on_act(self, message: dict) -> None:
        held = self.held
        refusal = held.refusal(message["version"])
        if refusal is not None:
            if not await self.session_still_valid():
                return
            metrics.refused(refusal)
            await self.send_error(refusal, ERROR_MESSAGES[refusal])
            if refusal == "stale_version":
                async with self.turn:
                    await self.send(text_data=self.held.frame())
            return
        try:
            outbox = await self.table_command(
                services.game_apply_action,
                game_id=held.game_id,
                user=self.user,
                action=message["action"],
                expected_version=message["version"],
            )
        except GameError as error:
            metrics.refused(error.code)
            await self.send_error(error.code, error.message)
            if error.code in {"stale_version", "game_finished"}:
                async with self.turn:
                    await self.send_whole_state()
            return
        MOVE_SECONDS.labels("committed").observe(time.perf_counter() - self.received_at)
        await self.deliver_own_first(outbox)
        MOVE_SECONDS.labels("sent").observe(time.perf_counter() - self.received_at)
        MOVES.labels("player").inc()

    async def on_rematch(self, message: dict) -> None:
        held_game = self.held.game_id if self.held else 0
        try:
            # Only the game this socket shows: no other table's game is confirmed from here.
            if not held_game or held_game != message["game"]:
                raise GameError("rematch_closed")
            outbox = await self.table_command(
                services.rematch_confirm,
                game_id=message["game"],
                user=self.user,
                client=client_of_scope(self.scope),
            )
        except GameError as error:
            await self.send_error(error.code, error.message)
            return
        await self.deliver_own_first(outbox)

    async def table_command(self, command, *args, **kwargs) -> list[broadcast.Message]:
        """Run a command that locks this table's row, and return the messages it sends.

        One at a time per table in each process: such commands wait for the row lock anyway,
        and waiting here keeps them from holding the process's database threads meanwhile, which
        every other table's moves need (four players confirming a rematch at once took them all).
        """
        async with _table_turn(self.table_id):
            with broadcast.collected() as outbox:
                await self.command(command, *args, **kwargs)
        return outbox

    async def deliver_own_first(self, outbox: list[broadcast.Message]) -> None:
        """Serve the user who made the change first; his other sockets and everyone else after."""
        mine = broadcast.user_group(self.table_id, self.user.pk)
        async with self.turn:
            for message_sent in outbox:
                if message_sent.group == mine:
                    await self.forward(message_sent.body)
        await broadcast.send(outbox)


def _count_socket(kind: str, change: int) -> None:
    metrics.OPEN_SOCKETS.labels(kind).inc(change)
    metrics.PROCESS_OPEN_SOCKETS.labels(kind).inc(change)


# A table's turn for its commands in this process, kept only while a command holds or awaits it.
_table_turns: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()


def _table_turn(table_id: int) -> asyncio.Lock:
    turn = _table_turns.get(table_id)
    if turn is None:
        turn = _table_turns[table_id] = asyncio.Lock()
    return turn


@dataclass(slots=True)
class Held:
    """What a table socket keeps of the last state it sent: the game (0: none), whether it is
    being played, its version, the user's seat in it (None: he does not play it), whether that
    seat has any legal move, and the state as text (``broadcast.StateText``) with its log."""

    game_id: int
    playing: bool
    version: int
    seat: int | None
    may_act: bool
    head: str
    events: deque[str]

    def frame(self) -> str:
        return broadcast.state_frame(self.head, self.events, None)

    def refusal(self, version: int) -> str | None:
        """The error code of a move made at `version` that this state already rules out, in
        the order the game itself checks; None when only the game can tell.

        The client knows only the states its socket sent, this one the latest: a move at any
        other version is stale, and a state that gives the seat no legal move refuses them all.
        """
        if not self.playing:
            # A game that began after this state was sent would have reached this socket too.
            return "no_game"
        if self.seat is None:
            return "not_a_player"
        if version != self.version:
            return "stale_version"
        if not self.may_act:
            return "not_your_turn"
        return None


def _table_state(table_id: int, user) -> Held:
    state = tables.table_state_read(table_id=table_id, user=user)
    text = broadcast.state_text(state)
    game = state["game"]
    return Held(
        game["id"] if game else 0,
        game is not None and game["status"] == Game.Status.PLAYING,
        state["version"],
        *broadcast.mover(state),
        text.head,
        deque(text.events, maxlen=tables.STATE_EVENTS),
    )


class SessionEnded(Exception):
    """The socket's session has ended since its last check."""


def _session_checked(
    due: bool, session_key: str | None, user_id: int, work, args: tuple, kwargs: dict
) -> Any:
    if due and not session_closes.session_is_valid(session_key, user_id):
        raise SessionEnded
    return work(*args, **kwargs)


class BadMessage(Exception):
    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(code)


def parse_message(
    text_data: str | None, bytes_data: bytes | None, messages: dict[str, dict[str, type]]
) -> dict:
    """The client's message if it is one of `messages` with exactly its fields (and any of its
    OPTIONAL_FIELDS); else BadMessage."""
    raw = text_data.encode() if text_data is not None else bytes_data or b""
    if len(raw) > MAX_FRAME_BYTES:
        raise BadMessage("frame_too_large")
    if _nesting(raw) > MAX_DEPTH:  # before decoding: deep nesting costs the decoder dearly
        raise BadMessage("bad_message")
    try:
        message = json.loads(raw)
    except ValueError:
        raise BadMessage("invalid_json") from None
    if not isinstance(message, dict):
        raise BadMessage("not_an_object")
    kind = message.get("type")
    fields = messages.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise BadMessage("unknown_type")
    optional = OPTIONAL_FIELDS.get(kind, {})
    given = {name: wanted for name, wanted in optional.items() if name in message}
    if message.keys() != {"type", *fields, *given} or not all(
        _has_type(message[name], wanted) for name, wanted in {**fields, **given}.items()
    ):
        raise BadMessage("bad_message")
    return message


def _nesting(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text (brackets inside strings not counted)."""
    deepest = depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


async def _take(subject: int | str, rate: float, burst: float) -> bool:
    return await rate_limits.take_async(subject, rate=rate, burst=burst)


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
