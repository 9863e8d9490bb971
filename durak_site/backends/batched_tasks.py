"""Celery tasks sent from a thread of their own, many items to a task.

A command's thread only appends to a list in memory (no Redis round trip on a move's thread);
the sender thread then sends everything queued since its last send as one task, so under load
many items share one task. What is queued in a process that dies before sending is lost: only
what may be lost goes this way (pushes).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from durak_site.celery import app as celery_app

logger = logging.getLogger(__name__)


def _send_task(name: str, items: list[Any], expires_at: float) -> None:
    celery_app.send_task(name, args=(items,), expires=datetime.fromtimestamp(expires_at, UTC))


class BatchedTask:
    """Queue items for the task `name`, which takes a list of them; a batch expires with the
    last of its items."""

    def __init__(self, name: str, send: Callable[[str, list, float], None] = _send_task) -> None:
        self.name, self.send = name, send
        self._reset()
        # A forked child has no copy of the parent's thread, and may hold a copy of its lock.
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._ready = threading.Condition()
        self._items: list[Any] = []
        self._expires_at = 0.0
        self._thread: threading.Thread | None = None

    def put(self, item: Any, *, expires_at: float) -> None:
        with self._ready:
            self._items.append(item)
            self._expires_at = max(self._expires_at, expires_at)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"send {self.name}", daemon=True
                )
                self._thread.start()
            self._ready.notify()

    def _run(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._items)
                items, expires_at = self._items, self._expires_at
                self._items, self._expires_at = [], 0.0
            try:
                self.send(self.name, items, expires_at)
            except Exception:  # the broker is away: these are lost, later ones are sent
                logger.exception("could not send %s (%d items)", self.name, len(items))
