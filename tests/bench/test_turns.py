"""The figures bench/turns.py compares, from load runs whose figures are known."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.turns import run_figures, summary, variant_environment


def load_report(moves_per_second: float, p50: float, p99: float, processes: list[dict]) -> dict:
    return {
        "runs": {
            "play": {
                "moves_per_second": moves_per_second,
                "latency_ms": {"last_seat": {"p50": p50, "p99": p99}},
                "errors": {"stale": 2},
                "processes": processes,
            }
        }
    }


def test_cpu_per_move_is_each_process_share_of_a_core_over_the_moves_a_second():
    report = load_report(
        100.0,
        12.0,
        140.0,
        [
            {"process": "daphne:11", "cpu_percent": 30.0},
            {"process": "daphne:12", "cpu_percent": 45.0},
            {"process": "worker:20", "cpu_percent": 4.0},
            {"process": "worker:21", "cpu_percent": 1.0},
            {"process": "postgres", "cpu_percent": 25.0},
        ],
    )
    assert run_figures(report) == {
        "moves/s": 100.0,
        "last seat p50 ms": 12.0,
        "last seat p99 ms": 140.0,
        "errors": 2,
        # 45 % of a core at 100 moves a second: 4.5 ms a move; the busiest web process first.
        "CPU/move web 1 ms": 4.5,
        "CPU/move web 2 ms": 3.0,
        "CPU/move postgres ms": 2.5,
        "CPU/move worker ms": 0.5,  # the worker and its pool together
    }


def test_a_run_without_moves_has_no_cpu_per_move():
    report = load_report(0.0, None, None, [{"process": "daphne:5", "cpu_percent": 3.0}])
    assert run_figures(report)["CPU/move web 1 ms"] is None


def test_the_summary_is_each_figure_median_lowest_and_highest():
    runs = [{"moves/s": value, "last seat p99 ms": None} for value in (90.0, 110.0, 100.0)]
    assert summary(runs) == {"moves/s": (100.0, 90.0, 110.0)}


def test_a_variant_names_only_values_its_settings_offer():
    assert variant_environment("WEB_PROXY=haproxy WEB_PROCESSES=3") == {
        "WEB_PROXY": "haproxy",
        "WEB_PROCESSES": "3",
    }
    with pytest.raises(ValueError, match="WEB_PROXY is one of none, haproxy"):
        variant_environment("WEB_PROXY=nginx")
    with pytest.raises(ValueError, match="NAME=value"):
        variant_environment("daphne")


def test_a_variant_may_run_another_checkout_of_the_platform(tmp_path):
    here = Path(__file__).resolve().parents[2]
    assert variant_environment(f"CHECKOUT={here}") == {"CHECKOUT": str(here)}
    with pytest.raises(ValueError, match="has no ./dev"):
        variant_environment(f"CHECKOUT={tmp_path}")
