"""Checks of the database that answer within a time limit, also while PostgreSQL is stalled.

A stalled server (stopped, or its machine frozen) holds a query without an error, and its own
``statement_timeout`` cannot fire while it is stopped: only the caller can stop waiting. Each
check runs on a thread of its own and is given up after its limit; while one given up still
waits for the server, later checks fail at once instead of piling more threads onto it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from django.db import connection

T = TypeVar("T")


class TimeLimited:
    """Runs calls one at a time on a thread of its own, each waited for at most `seconds`."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._lock = threading.Lock()
        self._running: Future | None = None

    def run(self, seconds: float, work: Callable[[], T]) -> T:
        """`work`'s result; TimeoutError when it took longer than `seconds`, or when an earlier
        call still holds the thread."""
        with self._lock:
            if self._running is not None and not self._running.done():
                raise TimeoutError("an earlier call is still waiting")
            self._running = future = self._executor.submit(_closing_connection, work)
        return future.result(timeout=seconds)


def _closing_connection(work: Callable[[], T]) -> T:
    try:
        return work()
    finally:
        # Back to the pool: the thread may next be needed only long after.
        connection.close()


def _select_one() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone() == (1,)


_database = TimeLimited("database-probe")


def database_answers(seconds: float = 1.0) -> bool:
    """Whether PostgreSQL answers a query within `seconds`."""
    try:
        return _database.run(seconds, _select_one)
    except Exception:
        return False


def within(seconds: float, work: Callable[[], T]) -> T:
    """Run database `work` on the probe's thread, given up after `seconds` (TimeoutError)."""
    return _database.run(seconds, work)
