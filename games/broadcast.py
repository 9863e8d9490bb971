"""A table's states, built once per change and sent to each viewer's own group.

Every user at a table (a player, or one seated waiting for the game) has a group of his own
sockets there, and every socket at the table is in its spectators' group. After a change each
seated user's state is built once and sent to his group alone, so a message holding a hand
only ever reaches that player's sockets; one spectators' state goes to the spectators' group,
where the seated users' sockets drop it, and only while someone else has a socket there.
Sockets only forward what they are sent.

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
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

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
    group: str
    body: dict[str, Any]


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
    connected, spectators = tables.table_audience(snapshot)
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
        Message(user_group(table_id, user_id), body("table.state", user_id)) for user_id in seated
    ]
    if spectators:
        # Read after the commit, and a spectator's socket is counted before it reads its first
        # state: one counted too late reads this change from the database.
        messages.append(
            Message(watch_group(table_id), {**body("table.watch", None), "seated": seated})
        )
    return messages


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
    global _loop, _loop_lock
    _loop, _loop_lock = None, threading.Lock()


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
    """Send every message in one batch (the last seat waits for two round trips, not four per
    group), retrying while the layer's Redis connection is broken: a committed change must
    reach its table. A retried batch may deliver some messages twice; sockets drop the older
    or equal states, by their key."""
    if not messages:
        return
    layer = get_channel_layer()
    sends = [(message.group, message.body) for message in messages]
    for delay in (*RETRY_DELAYS, None):
        try:
            await layer.group_send_many(sends)
            return
        except (RedisError, OSError) as error:
            if delay is None:
                logger.error("table states could not be sent to %s: %s", sends[0][0], error)
                return
            logger.warning("retrying table states to %s after: %s", sends[0][0], error)
            await asyncio.sleep(delay)
