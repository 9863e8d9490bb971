"""Sockets of one web process open a few at a time, after their handshake is answered.

Opening a table socket reads the table, claims the user's slot, joins groups and reads the
state, all on the process's few database threads. When hundreds of sockets open at once (a
server restart, a crowd arriving) their steps interleave: each waits behind every other's at
every step, so they all finish late together. Had the handshake waited for that work, Daphne
would have dropped every one older than its handshake timeout, and the clients' retries would
have made the next wave worse. So the handshake is answered first, and the work after it runs
a few sockets at a time in arrival order: each socket is served in milliseconds once its turn
comes, and a crowd is served at the speed of the database.
"""

from __future__ import annotations

import asyncio
import weakref

from django.conf import settings

# One semaphore per event loop: a semaphore belongs to the loop it first waited in.
_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def opening_slots() -> asyncio.Semaphore:
    """The running loop's slots for sockets being opened (``SOCKET_OPENS_AT_ONCE``)."""
    loop = asyncio.get_running_loop()
    slots = _slots.get(loop)
    if slots is None:
        slots = _slots[loop] = asyncio.Semaphore(settings.SOCKET_OPENS_AT_ONCE)
    return slots
