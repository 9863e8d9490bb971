"""The load benchmark's statistics, pure functions of what it collected: latency percentiles,
the machine's and each process's share of the CPU, and the run stretch by stretch."""

from __future__ import annotations

import itertools
from typing import Any


def percentiles(values: list[float]) -> dict[str, float | int | None]:
    """Count, p50, p90, p99 and max of durations in seconds, in milliseconds to a tenth.

    A percentile is the sorted value at index ``int(share * count)`` (the largest for a share
    that reaches past it): a rank above the nearest-rank definition for small counts, kept so
    that every recorded run stays comparable."""
    if not values:
        return {"count": 0, "p50": None, "p90": None, "p99": None, "max": None}
    ordered = sorted(values)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000, 1)

    return {
        "count": len(ordered),
        "p50": at(0.50),
        "p90": at(0.90),
        "p99": at(0.99),
        "max": round(ordered[-1] * 1000, 1),
    }


def machine_report(start: tuple[int, int, int], end: tuple[int, int, int]) -> dict[str, float]:
    """Shares of the machine's CPU time over the window: busy, and stolen by the host. A run
    that lost a tenth of its time to the host's other guests says so beside its figures."""
    total = max(end[0] - start[0], 1)
    return {
        "busy_percent": round(100 * (total - (end[1] - start[1])) / total, 1),
        "stolen_percent": round(100 * (end[2] - start[2]) / total, 1),
    }


def process_report(
    pids: dict[int, str], start: dict, end: dict, seconds: float, connections: dict[int, int]
) -> list[dict[str, Any]]:
    """CPU % over the window and RSS at its start and end, per process (PostgreSQL summed), and
    the connections each web process holds at the end."""
    rows: dict[str, dict[str, Any]] = {}
    for pid, role in sorted(pids.items()):
        if pid not in end:
            continue
        cpu_start, rss_start = start.get(pid, (0.0, 0))
        name = role if role == "postgres" else f"{role}:{pid}"
        row = rows.setdefault(
            name, {"process": name, "cpu_percent": 0.0, "rss_start_mb": 0.0, "rss_mb": 0.0}
        )
        row["cpu_percent"] += 100 * (end[pid][0] - cpu_start) / seconds
        row["rss_start_mb"] += rss_start / 2**20
        row["rss_mb"] += end[pid][1] / 2**20
        if pid in connections:
            row["connections"] = connections[pid]
    for row in rows.values():
        for key in ("cpu_percent", "rss_start_mb", "rss_mb"):
            row[key] = round(row[key], 1)
    return list(rows.values())


def stretch_report(
    timeline: list[tuple[float, float, bool]],
    started: float,
    cpu_marks: list[tuple[int, int, int]],
    stretch_seconds: float,
) -> list[dict[str, Any]]:
    """The last seat's latency, the games ended and the machine's shares, stretch by stretch
    of `stretch_seconds` between consecutive `cpu_marks` (a move counts in the stretch it was
    sent in)."""
    rows = []
    for index, (cpu_from, cpu_to) in enumerate(itertools.pairwise(cpu_marks)):
        low, high = index * stretch_seconds, (index + 1) * stretch_seconds
        moves = [(late, ended) for sent, late, ended in timeline if low <= sent - started < high]
        rows.append(
            {
                "from_second": low,
                "last_seat": percentiles([late for late, _ in moves]),
                "games_ended": sum(ended for _, ended in moves),
                **machine_report(cpu_from, cpu_to),
            }
        )
    return rows
