"""What the metrics add to a move: python bench/metrics.py [--moves N].

Times, on one core, what a move's path does for the metrics (the receipt's clock, two
observations of the move histogram, the moves counter) and what a socket's open and close do
(two gauges each), in multi-process mode (files mapped in a fresh PROMETHEUS_MULTIPROC_DIR, as
``./dev run`` sets up) and in a process's own memory, and prints the nanoseconds of each.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def measure(moves: int) -> None:
    """In this process: nanoseconds per move's and per socket's metric updates."""
    import django

    django.setup()
    from durak_site.ops.metrics import OPEN_SOCKETS, PROCESS_OPEN_SOCKETS
    from games.metrics import MOVE_SECONDS, MOVES

    def move() -> None:
        received = time.perf_counter()
        MOVE_SECONDS.labels("committed").observe(time.perf_counter() - received)
        MOVE_SECONDS.labels("sent").observe(time.perf_counter() - received)
        MOVES.labels("player").inc()

    def socket() -> None:
        for change in (1, -1):
            OPEN_SOCKETS.labels("table").inc(change)
            PROCESS_OPEN_SOCKETS.labels("table").inc(change)

    for name, work in (("a move", move), ("a socket opened and closed", socket)):
        for _warmup in range(1000):
            work()
        started = time.process_time_ns()
        for _repeat in range(moves):
            work()
        print(f"  {name}: {(time.process_time_ns() - started) / moves:,.0f} ns of CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=100_000)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.moves)
        return
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "durak_site.settings", "DEBUG": "1"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with tempfile.TemporaryDirectory() as directory:
        for label, extra in (
            ("multi-process (mapped files)", {"PROMETHEUS_MULTIPROC_DIR": directory}),
            ("one process (memory)", {}),
        ):
            print(label, flush=True)
            command = [sys.executable, __file__, "--measure", "--moves", str(args.moves)]
            subprocess.run(command, env={**env, **extra}, check=True)


if __name__ == "__main__":
    main()
