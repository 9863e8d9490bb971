"""Database work called from async code, spread over a few threads of each web process, handed
out in turns by client address.

Channels runs every ``database_sync_to_async`` call of a process on one thread, so one slow
call queues all the others behind it. Here each process has ``DB_THREADS`` threads; each call
borrows a connection from the process's pool and gives it back (settings ``DATABASES``).

A thread pool serves its queue first come, first served: a crowd of sockets behind one address
(each handles one message at a time, but there can be hundreds) would fill the queue, and every
other table's moves would wait behind all of it. So work waits for a thread here, in a queue of
its client's address (``ByAddress`` names it for each socket), and free threads go to the
addresses in turns, never more than half of them to one address at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import weakref
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from functools import cache as once
from typing import Any

from channels import auth
from channels.db import DatabaseSyncToAsync
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings

from durak_site.web.client_source import address_of_scope

# The client address whose connection the running task serves (None: no client's).
_address: ContextVar[str | None] = ContextVar("database_turns_address", default=None)
_NOBODY = object()


@once
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=settings.DB_THREADS, thread_name_prefix="database")


class Turns:
    """A number of threads lent to waiting work in turns by address: each free thread goes to
    the address after the one served last that has work waiting and fewer than `per_address`
    threads already, to its oldest work."""

    def __init__(self, threads: int, per_address: int) -> None:
        self.free = threads
        self.per_address = per_address
        self.running: Counter[str | None] = Counter()
        self.waiting: OrderedDict[str | None, deque[asyncio.Future]] = OrderedDict()

    @contextlib.asynccontextmanager
    async def turn(self, address: str | None) -> AsyncIterator[None]:
        """Inside, the work of `address` holds one of the threads."""
        if self.free and self.running[address] < self.per_address and address not in self.waiting:
            self._lend(address)
        else:
            granted = asyncio.get_running_loop().create_future()
            self.waiting.setdefault(address, deque()).append(granted)
            try:
                await granted
            except asyncio.CancelledError:
                if granted.cancelled():
                    self._forget(address, granted)
                else:  # lent just before the cancellation arrived
                    self._give_back(address)
                raise
        try:
            yield
        finally:
            self._give_back(address)

    def _lend(self, address: str | None) -> None:
        self.free -= 1
        self.running[address] += 1

    def _give_back(self, address: str | None) -> None:
        self.free += 1
        self.running[address] -= 1
        if not self.running[address]:
            del self.running[address]
        while self.free:
            turn = next((a for a in self.waiting if self.running[a] < self.per_address), _NOBODY)
            if turn is _NOBODY:
                return
            queue = self.waiting.pop(turn)
            granted = queue.popleft()
            if queue:
                self.waiting[turn] = queue  # at the back of the line
            if not granted.cancelled():  # else its task is leaving the line
                self._lend(turn)
                granted.set_result(None)

    def _forget(self, address: str | None, granted: asyncio.Future) -> None:
        queue = self.waiting.get(address)
        if queue is not None and granted in queue:
            queue.remove(granted)
            if not queue:
                del self.waiting[address]


# One set of turns per event loop: its futures belong to the loop they wait in.
_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Turns] = weakref.WeakKeyDictionary()


def turns() -> Turns:
    """The running loop's turns for the database threads."""
    loop = asyncio.get_running_loop()
    found = _turns.get(loop)
    if found is None:
        threads = settings.DB_THREADS
        found = _turns[loop] = Turns(threads, per_address=max(1, threads // 2))
    return found


def database_sync_to_async(func: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """Like ``channels.db.database_sync_to_async``, on the process's database threads, in the
    turn of the client address the running task serves."""
    call = DatabaseSyncToAsync(func, thread_sensitive=False, executor=_executor())

    @functools.wraps(func)
    async def in_turn(*args: Any, **kwargs: Any) -> Any:
        async with turns().turn(_address.get()):
            return await call(*args, **kwargs)

    return in_turn


class ByAddress:
    """Everything a WebSocket connection does in the database waits in its address's turn."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send) -> None:
        token = _address.set(address_of_scope(scope))
        try:
            await self.inner(scope, receive, send)
        finally:
            _address.reset(token)


class AuthMiddleware(auth.AuthMiddleware):
    """Channels' session user lookup, on the database threads instead of the single one."""

    async def resolve_scope(self, scope: dict) -> None:
        scope["user"]._wrapped = await database_sync_to_async(auth.get_user.func)(scope)


def AuthMiddlewareStack(inner):  # noqa: N802 - named like the Channels stack it replaces
    return CookieMiddleware(SessionMiddleware(ByAddress(AuthMiddleware(inner))))
