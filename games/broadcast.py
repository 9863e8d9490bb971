"""A table's states, built once per change and handed to each viewer's own sockets.

Every user at a table (a player, or one seated waiting for the game) has a group of his own
sockets there, and every socket at the table is in its spectators' group. After a change each
seated user's state is built once and handed to his group alone, so a message holding a hand
only ever reaches that player's sockets; one spectators' state goes to the spectators' group,
where the seated users' sockets drop it, and only while someone else has a socket there.
Sockets only forward what they are sent.

The groups live in each web process (``LocalSockets``), not in the channel layer: the process
that makes a change hands its own sockets their states in memory. A table's sockets are meant
to share one process, its owner (the proxy routes ``/ws/table/<id>/`` by the table id), so a
player's move usually crosses no process at all. Presence (``games.presence``) names the
process of every socket at the table, which the change reads anyway; each other process with
sockets there gets one channel-layer message with just its sockets' states, sent to its own
group. So the worker's deadline moves, pages' commands, and a socket that landed on another
process (a failover, or several processes sharing one port) are served through Redis, and the
lobby stays a channel-layer group.

Each message carries the moves since ``from`` (the version before the change) rather than the
whole log, and a ``key`` (game id, version, stamp) that orders states across processes: the
stamp is taken after the commit, or before the read, so a later key never holds older data.

States travel as JSON text, encoded once where they are built: the state's fields but its log
(``head``) and each move of the log on its own (``events``), so a socket joins texts to send a
change or its whole log and keeps strings, which the garbage collector never walks, where it
kept a tree of objects per move.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import RedisError

from games.models import Game
from games.selectors import tables

# Pauses before each new try of a send that failed (the layer reconnects in between).
RETRY_DELAYS = (0.05, 0.2, 0.5, 1.0, 2.0)
logger = logging.getLogger(__name__)


def user_group(table_id: int, user_id: int) -> str:
    return f"games.table.{table_id}.user.{user_id}"


def watch_group(table_id: int) -> str:
    return f"games.table.{table_id}.watch"


@dataclass(frozen=True)
class Message:
    """A body for a group: a table's group (`processes`: the web processes holding sockets in
    it, by their fan-out groups), or a channel-layer group such as the lobby (None)."""

    group: str
    body: dict[str, Any]
    processes: frozenset[str] | None = None


def stamp() -> float:
    return time.time()


encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)
class StateText:
    """A state as sockets keep and send it: its fields but the log, as JSON text without the
    braces; each move of its log as JSON."""

    head: str
    events: list[str]


def state_text(state: dict[str, Any], events: list[str] | None = None) -> StateText:
    """The state's text; `events`: its log already encoded."""
    fields = {name: value for name, value in state.items() if name != "events"}
    if events is None:
        events = [encode(event) for event in state["events"]]
    return StateText(encode(fields)[1:-1], events)


def state_frame(head: str, events: Iterable[str], events_from: int | None) -> str:
    """The socket's ``state`` message: the state, its log or the moves since `events_from`."""
    moves = ",".join(events)
    if events_from is None:
        return f'{{"type":"state",{head},"events":[{moves}]}}'
    return f'{{"type":"state",{head},"events":[{moves}],"events_from":{events_from}}}'


def mover(state: dict[str, Any]) -> tuple[int | None, bool]:
    """The viewer's seat in the state's game (None: he does not play it) and whether the state
    gives him any legal move; a socket refuses what they rule out without the database."""
    if state["game"] is None:
        return None, False
    view = state["view"]  # None for a practice game its player left: nobody moves in it
    return state["you"], view is not None and bool(view["legal_actions"])


def table_messages(
    snapshot: tables.TableSnapshot, *, events: list[dict], events_from: int, at: float
) -> list[Message]:
    """One message per seated user and, when anyone else has a socket at the table, one for
    the spectators, each with its own state."""
    table_id = snapshot.table.pk
    game = snapshot.game
    key = [game.pk if game is not None else 0, game.version if game is not None else 0, at]
    audience = tables.table_audience(snapshot)
    connected, by_user = audience.connected, audience.processes
    seated = snapshot.seated
    moves = [encode(event) for event in events]  # the same for every viewer: encoded once
    live = game is not None and game.status == Game.Status.PLAYING

    def body(kind: str, user_id: int | None) -> dict[str, Any]:
        state = tables.table_state(snapshot, user_id, connected, [])
        text = state_text(state, moves)
        seat, may_act = mover(state)
        return {
            "type": kind,
            "key": key,
            "from": events_from,
            "playing": live,
            "seat": seat,
            "may_act": may_act,
            "head": text.head,
            "events": text.events,
        }

    messages = [
        Message(
            user_group(table_id, user_id),
            body("table.state", user_id),
            by_user.get(user_id, frozenset()),
        )
        for user_id in seated
    ]
    if audience.spectators:
        # Read after the commit, and a spectator's socket is counted before it reads its first
        # state: one counted too late reads this change from the database.
        watching = frozenset().union(
            *(names for user_id, names in by_user.items() if user_id not in seated)
        )
        messages.append(
            Message(
                watch_group(table_id), {**body("table.watch", None), "seated": seated}, watching
            )
        )
    return messages


class TableSocket(Protocol):
    def post(self, body: dict[str, Any]) -> None:
        """Take a state (or chat message) to handle after those posted before it."""


# How often a process joins its fan-out group again: the channel layer forgets a group's
# members after a day, and a Redis that restarted empty forgot them at once.
REJOIN_SECONDS = 600.0
# A fan-out message of other processes: (group, body) pairs for this process's sockets.
FANOUT = "tables.fanout"


class LocalSockets:
    """The table sockets of this process, by group, on the event loop that serves them, and
    the process's fan-out group in the channel layer, through which other processes send it
    the states of its sockets."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.name = f"games.sockets.{uuid.uuid4().hex}"
        self.groups: dict[str, set[TableSocket]] = defaultdict(set)
        self.joined = asyncio.Event()
        self.listener = loop.create_task(self.listen())

    def connection(self, channel_name: str) -> str:
        """A socket's name in presence: this process's fan-out group and its channel."""
        return f"{self.name}@{channel_name}"

    def add(self, table_id: int, user_id: int, socket: TableSocket) -> None:
        self.groups[user_group(table_id, user_id)].add(socket)
        self.groups[watch_group(table_id)].add(socket)

    def discard(self, table_id: int, user_id: int, socket: TableSocket) -> None:
        for group in (user_group(table_id, user_id), watch_group(table_id)):
            members = self.groups.get(group)
            if members is not None:
                members.discard(socket)
                if not members:
                    del self.groups[group]

    def hand_out(self, parts: Iterable[tuple[str, dict[str, Any]]]) -> None:
        for group, body in parts:
            for socket in self.groups.get(group, ()):
                socket.post(body)

    async def listen(self) -> None:
        """Hand out what other processes send; join the group again now and then, and after
        Redis failed."""
        layer = get_channel_layer()
        # Named as the consumers' channels are: channels-redis reads all of a process's
        # channels under one lock, by whoever holds it, and only those of one prefix.
        channel = await layer.new_channel()
        rejoin: asyncio.Task | None = None
        while True:
            try:
                await layer.group_add(self.name, channel)
                self.joined.set()
                rejoin = asyncio.ensure_future(self.rejoin(layer, channel))
                while True:
                    message = await layer.receive(channel)
                    if message.get("type") == FANOUT:
                        self.hand_out(message["parts"])
            except Exception:  # noqa: BLE001 - whatever broke, other processes' states must come
                logger.warning("table fan-out group lost; joining again", exc_info=True)
                await asyncio.sleep(RETRY_DELAYS[1])
            finally:
                if rejoin is not None:
                    rejoin.cancel()

    async def rejoin(self, layer, channel: str) -> None:
        while True:
            await asyncio.sleep(REJOIN_SECONDS)
            try:
                await layer.group_add(self.name, channel)
            except Exception:  # noqa: BLE001 - the group lasts far longer than the next round
                logger.warning("table fan-out group not joined again; next round", exc_info=True)


_local: LocalSockets | None = None


async def local_sockets() -> LocalSockets:
    """This process's table sockets, on the running event loop, joined to its fan-out group."""
    global _local
    loop = asyncio.get_running_loop()
    if _local is None or _local.loop is not loop:
        if _local is not None and not _local.loop.is_closed():
            _local.loop.call_soon_threadsafe(_local.listener.cancel)
        _local = LocalSockets(loop)
    await _local.joined.wait()
    return _local


def _here() -> LocalSockets | None:
    """This process's sockets when the running loop serves them."""
    local = _local
    return local if local is not None and local.loop is asyncio.get_running_loop() else None


# The outbox: where a command's messages go once it commits. A command publishes the same
# messages whoever calls it (``games.effects`` builds them on commit and hands them to
# ``deliver``); only who sends them differs. Outside ``collected`` (tasks, the deadline loop,
# pages) ``deliver`` sends them from the committing thread. Inside it (the table socket's
# commands, ``TableConsumer.table_command`` and ``chat_command``) they are kept in this list
# and returned to the socket, which serves its own user first and then sends them all. The
# variable is set in the socket's task; asgiref runs the command in a database thread with a
# copy of that context, so the command appends to the very list the socket holds.
_outbox: ContextVar[list[Message] | None] = ContextVar("games_broadcast_outbox", default=None)


@contextlib.contextmanager
def collected() -> Iterator[list[Message]]:
    """Inside, committed changes keep their messages here for the caller to send (the
    outbox above): a mover's socket serves itself before anyone else, then sends the rest."""
    outbox: list[Message] = []
    token = _outbox.set(outbox)
    try:
        yield outbox
    finally:
        _outbox.reset(token)


# A process without an event loop of its own (a Celery worker) sends through one long-lived
# loop thread: the channel layer keeps its Redis connections per loop, and a new loop for each
# send would open (and close) a connection for each.
_use_own_loop = False
_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def send_through_own_loop() -> None:
    """From now on this process (and the processes it forks) sends from a loop thread."""
    global _use_own_loop
    _use_own_loop = True


def _own_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _loop_lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="broadcast", daemon=True).start()
        return _loop


def _forget_loop_in_child() -> None:
    # A forked child has no copy of the parent's threads: it starts a loop of its own.
    global _loop, _loop_lock, _local
    _loop, _loop_lock, _local = None, threading.Lock(), None


os.register_at_fork(after_in_child=_forget_loop_in_child)


def deliver(messages: list[Message]) -> None:
    """Send now (on commit), or keep them for the caller that collects them."""
    outbox = _outbox.get()
    if outbox is not None:
        outbox.extend(messages)
    elif _use_own_loop:
        asyncio.run_coroutine_threadsafe(send(messages), _own_loop()).result()
    else:
        async_to_sync(send)(messages)


async def send(messages: list[Message]) -> None:
    """Hand this process's sockets their messages, then send the rest through the channel
    layer at once: to each other process with sockets at the table, one message with all of
    theirs; to each channel-layer group its own. Remote sends are retried while the layer's
    Redis connection is broken: a committed change must reach its table. A retried send may
    deliver some messages twice; sockets drop the older or equal states, by their key."""
    if not messages:
        return
    here = _here()
    if here is not None:
        here.hand_out((message.group, message.body) for message in messages)
    by_process: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    sends = []
    for message in messages:
        if message.processes is None:
            sends.append((message.group, message.body))
            continue
        for process in message.processes:
            if here is None or process != here.name:
                by_process[process].append((message.group, message.body))
    sends += [(process, {"type": FANOUT, "parts": parts}) for process, parts in by_process.items()]
    if not sends:
        return
    layer = get_channel_layer()
    for delay in (*RETRY_DELAYS, None):
        try:
            await asyncio.gather(*(layer.group_send(group, body) for group, body in sends))
            return
        except (RedisError, OSError) as error:
            if delay is None:
                logger.error("table states could not be sent to %s: %s", sends[0][0], error)
                return
            logger.warning("retrying table states to %s after: %s", sends[0][0], error)
            await asyncio.sleep(delay)
