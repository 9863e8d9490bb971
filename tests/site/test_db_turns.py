"""The database threads go to client addresses in turns, never all to one of them."""

from __future__ import annotations

import asyncio

import pytest

from durak_site.sockets.db_threads import Turns

pytestmark = pytest.mark.asyncio


class Work:
    """A piece of work of `address` that holds its thread until told to finish."""

    def __init__(self, turns: Turns, address: str | None, started: list[str], name: str):
        self.finish = asyncio.Event()
        self.task = asyncio.create_task(self.run(turns, address, started, name))

    async def run(self, turns: Turns, address: str | None, started: list[str], name: str):
        async with turns.turn(address):
            started.append(name)
            await self.finish.wait()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_free_threads_go_to_the_waiting_addresses_in_turns():
    turns = Turns(threads=1, per_address=1)
    started: list[str] = []
    work = {name: Work(turns, name[0], started, name) for name in ["a1", "a2", "a3", "b1", "c1"]}
    await settle()
    assert started == ["a1"]
    order = []
    for _ in range(4):
        work[started[-1]].finish.set()
        await settle()
        order.append(started[-1])
    # The address with three pieces of work waiting is served once, then the others, then again.
    assert order == ["a2", "b1", "c1", "a3"]
    work["a3"].finish.set()
    await asyncio.gather(*(piece.task for piece in work.values()))
    assert turns.free == 1 and not turns.running and not turns.waiting


async def test_one_address_never_holds_more_than_its_share_of_the_threads():
    turns = Turns(threads=4, per_address=2)
    started: list[str] = []
    flood = [Work(turns, "flood", started, f"flood{n}") for n in range(10)]
    await settle()
    assert started == ["flood0", "flood1"]
    honest = [Work(turns, f"player{n}", started, f"player{n}") for n in range(2)]
    await settle()
    assert started[2:] == ["player0", "player1"]  # at once, not behind the flood's queue
    for piece in [*flood, *honest]:
        piece.finish.set()
    await asyncio.gather(*(piece.task for piece in [*flood, *honest]))
    assert turns.free == 4 and not turns.running and not turns.waiting


async def test_work_cancelled_while_it_waits_or_just_as_its_turn_came_gives_it_back():
    turns = Turns(threads=1, per_address=1)
    started: list[str] = []
    first = Work(turns, "a", started, "first")
    waiting = Work(turns, None, started, "waiting")
    next_in_line = Work(turns, "b", started, "next")
    await settle()
    waiting.task.cancel()
    await settle()
    first.finish.set()
    await settle()
    assert started == ["first", "next"]  # the cancelled work was skipped
    late = Work(turns, "c", started, "late")
    await settle()
    next_in_line.finish.set()
    await asyncio.sleep(0)  # it ends and hands its thread to the late work, which has not woken
    assert turns.running == {"c": 1}
    late.task.cancel()
    await asyncio.gather(
        *(piece.task for piece in [first, waiting, next_in_line, late]), return_exceptions=True
    )
    assert started == ["first", "next"]
    assert turns.free == 1 and not turns.running and not turns.waiting
