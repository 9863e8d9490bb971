"""Tasks sent from a thread of their own, many items to a task
(durak_site.backends.batched_tasks)."""

from __future__ import annotations

import queue
import threading

from durak_site.backends.batched_tasks import BatchedTask


class Broker:
    """Takes the sends; the first one waits until `release` is set."""

    def __init__(self, fail_first: bool = False) -> None:
        self.sent: queue.Queue = queue.Queue()
        self.release = threading.Event()
        self.fail_first = fail_first

    def __call__(self, name: str, items: list, expires_at: float) -> None:
        first = self.sent.empty() and not self.release.is_set()
        self.sent.put((name, items, expires_at, threading.current_thread().name))
        if first:
            self.release.wait(5)
            if self.fail_first:
                raise ConnectionError("broker away")


def test_the_caller_never_waits_and_items_queued_meanwhile_share_one_task():
    broker = Broker()
    task = BatchedTask("games.tasks.example", send=broker)
    task.put("a", expires_at=100.0)
    name, items, expires_at, thread = broker.sent.get(timeout=5)
    assert (name, items, expires_at) == ("games.tasks.example", ["a"], 100.0)
    assert thread != threading.current_thread().name
    # The first send is still under way: these wait for it, and then go as one task that
    # expires with the last of them.
    task.put("b", expires_at=200.0)
    task.put("c", expires_at=150.0)
    assert broker.sent.empty()
    broker.release.set()
    assert broker.sent.get(timeout=5)[1:3] == (["b", "c"], 200.0)


def test_a_failed_send_loses_its_batch_but_not_the_next():
    broker = Broker(fail_first=True)
    task = BatchedTask("games.tasks.example", send=broker)
    task.put("lost", expires_at=1.0)
    assert broker.sent.get(timeout=5)[1] == ["lost"]
    task.put("kept", expires_at=2.0)
    broker.release.set()
    assert broker.sent.get(timeout=5)[1] == ["kept"]
