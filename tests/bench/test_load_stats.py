"""The load benchmark's statistics (bench/stats.py), on collections whose figures are known."""

from __future__ import annotations

import random

from bench.stats import machine_report, percentiles, process_report, stretch_report


def test_no_values_give_a_count_of_zero_and_no_figures():
    assert percentiles([]) == {"count": 0, "p50": None, "p90": None, "p99": None, "max": None}


def test_percentiles_of_a_hundred_durations_are_read_in_milliseconds_whatever_their_order():
    seconds = [n / 1000 for n in range(1, 101)]  # 1 ms .. 100 ms
    random.Random(7).shuffle(seconds)
    assert percentiles(seconds) == {
        "count": 100,
        "p50": 51.0,
        "p90": 91.0,
        "p99": 100.0,
        "max": 100.0,
    }


def test_one_slow_move_in_a_thousand_shows_in_the_maximum_and_not_in_the_p99():
    seconds = [0.010] * 999 + [2.5]
    figures = percentiles(seconds)
    assert figures["p50"] == figures["p90"] == figures["p99"] == 10.0
    assert figures["max"] == 2500.0


def test_a_single_value_is_every_percentile_rounded_to_a_tenth_of_a_millisecond():
    assert percentiles([0.01234]) == {
        "count": 1,
        "p50": 12.3,
        "p90": 12.3,
        "p99": 12.3,
        "max": 12.3,
    }


def test_the_machines_busy_and_stolen_shares_come_from_the_tick_counters_difference():
    # (all ticks, idle ticks, stolen ticks) since boot, at the start and the end of a window.
    start, end = (10_000, 6_000, 100), (11_000, 6_250, 150)
    assert machine_report(start, end) == {"busy_percent": 75.0, "stolen_percent": 5.0}


def test_each_process_gets_its_cpu_share_and_memory_and_the_database_backends_are_summed():
    mib = 2**20
    pids = {10: "daphne", 11: "worker", 20: "postgres", 21: "postgres", 30: "redis"}
    start = {10: (1.0, 100 * mib), 11: (0.5, 50 * mib), 20: (2.0, 10 * mib)}
    # 21 started during the window (counted from zero); 30 ended before it closed.
    end = {10: (6.0, 120 * mib), 11: (1.5, 50 * mib), 20: (3.0, 10 * mib), 21: (1.0, 5 * mib)}
    rows = process_report(pids, start, end, seconds=10.0, connections={10: 400})
    assert rows == [
        {
            "process": "daphne:10",
            "cpu_percent": 50.0,
            "rss_start_mb": 100.0,
            "rss_mb": 120.0,
            "connections": 400,
        },
        {"process": "worker:11", "cpu_percent": 10.0, "rss_start_mb": 50.0, "rss_mb": 50.0},
        {"process": "postgres", "cpu_percent": 20.0, "rss_start_mb": 10.0, "rss_mb": 15.0},
    ]


def test_moves_count_in_the_stretch_they_were_sent_in_with_that_stretchs_machine_shares():
    started = 100.0
    # (sent at, last seat's latency in seconds, ended a game)
    timeline = [
        (100.5, 0.010, False),
        (109.99, 0.030, True),
        (110.0, 0.200, False),
        (125.0, 0.050, True),
        (131.0, 0.070, False),  # after the last mark: in no stretch
    ]
    marks = [(0, 0, 0), (1_000, 500, 0), (2_000, 1_000, 100), (3_000, 1_900, 100)]
    stretches = stretch_report(timeline, started, marks, stretch_seconds=10.0)
    assert [row["from_second"] for row in stretches] == [0.0, 10.0, 20.0]
    assert [row["last_seat"]["count"] for row in stretches] == [2, 1, 1]
    assert [row["last_seat"]["max"] for row in stretches] == [30.0, 200.0, 50.0]
    assert [row["games_ended"] for row in stretches] == [1, 0, 1]
    assert [row["busy_percent"] for row in stretches] == [50.0, 50.0, 10.0]
    assert [row["stolen_percent"] for row in stretches] == [0.0, 10.0, 0.0]
