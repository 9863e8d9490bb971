"""Users behind one address flooding their table sockets, in a process of their own.

Run by the flood test as another machine would be: in the measuring process a send loop would
take the event loop from the honest clients it times. Reads its orders from stdin: first a JSON
line ``{"url", "origin", "address", "sockets_per_user", "rate", "users": [[cookie, table]]}``,
then one word a line: ``sync`` (each socket asks for the state at the version it holds), ``act``
(each socket moves at a version after it, at its own table or one it watches), ``stop`` (the
sockets fall silent).
Answers ``ready`` once every socket has its first state, and each order once it is followed.
Every socket sends at `rate` messages a second, within the limits of a socket and of a user; a
socket the server closes is opened again at once, as a determined flooder would. At the end of
its input it prints what its sockets were sent, by type, error code and close code, and its own
CPU seconds by order, as JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections import Counter

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


class FloodSocket:
    def __init__(self, plan: dict, cookie: str, table: int, orders: dict, received: Counter):
        self.plan, self.cookie, self.table = plan, cookie, table
        self.orders, self.received = orders, received
        self.version = 0
        self.got_state = asyncio.Event()

    async def run(self) -> None:
        while True:
            try:
                async with connect(
                    f"{self.plan['url']}/ws/table/{self.table}/",
                    origin=self.plan["origin"],
                    additional_headers={
                        "Cookie": self.cookie,
                        "X-Forwarded-For": self.plan["address"],
                    },
                    open_timeout=30,
                    max_size=2**22,
                    proxy=None,
                ) as socket:
                    reader = asyncio.create_task(self.read(socket))
                    try:
                        await self.send(socket)
                    finally:
                        reader.cancel()
            except ConnectionClosed as closed:
                self.received[f"closed:{closed.rcvd.code if closed.rcvd else None}"] += 1
            except Exception as error:  # noqa: BLE001 - counted; the flooder goes on
                self.received[f"failed:{type(error).__name__}"] += 1
            await asyncio.sleep(0.05)

    async def read(self, socket) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in socket:
                message = json.loads(frame)
                kind = message["type"]
                self.received[f"{kind}:{message['code']}" if kind == "error" else kind] += 1
                if kind == "state":
                    self.version = message["version"]
                    self.got_state.set()

    async def send(self, socket) -> None:
        while True:
            order = self.orders["now"]
            if order == "sync":
                await socket.send(json.dumps({"type": "sync", "version": self.version}))
            elif order == "act":
                action = {"type": "take"}
                await socket.send(
                    json.dumps({"type": "act", "action": action, "version": self.version + 1})
                )
            await asyncio.sleep(1 / self.plan["rate"])


async def main() -> None:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    plan = json.loads(await stdin.readline())
    orders = {"now": "stop"}
    received: Counter = Counter()
    sockets = [
        FloodSocket(plan, cookie, table, orders, received)
        for cookie, table in plan["users"]
        for _ in range(plan["sockets_per_user"])
    ]
    running = [asyncio.create_task(flood_socket.run()) for flood_socket in sockets]
    await asyncio.wait_for(
        asyncio.gather(*(flood_socket.got_state.wait() for flood_socket in sockets)), 60
    )
    print("ready", flush=True)
    cpu: Counter = Counter()  # the flooder's own CPU seconds, by order
    since = time.process_time()
    while order := (await stdin.readline()).decode().strip():
        cpu[orders["now"]] += time.process_time() - since
        since = time.process_time()
        orders["now"] = order
        print(order, flush=True)
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    received.update({f"cpu:{order}": round(seconds, 2) for order, seconds in cpu.items()})
    print(json.dumps(received), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
