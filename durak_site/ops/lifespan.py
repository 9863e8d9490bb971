"""What a web process does when uvicorn starts and stops it (``WEB_SERVER=uvicorn``), through
ASGI's lifespan messages: it beats as the web tier while it serves, and once stopped it leaves
the live gauges. Daphne sends no lifespan messages; under it ``durak_site.asgi`` hooks the same
into the Twisted reactor."""

from __future__ import annotations

import asyncio
import contextlib
import os

from durak_site.ops import heartbeats, monitoring


async def lifespan(scope: dict, receive, send) -> None:
    beating: asyncio.Task | None = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            beating = asyncio.create_task(heartbeats.beat_from_loop())
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if beating is not None:
                beating.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await beating
            monitoring.process_ended(os.getpid())
            await send({"type": "lifespan.shutdown.complete"})
            return
