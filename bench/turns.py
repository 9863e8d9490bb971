"""Two variants of the platform measured in turns by the load benchmark: A, B, A, B, ...

    python bench/turns.py --a WEB_PROXY=none --b WEB_PROXY=haproxy --runs 5 \\
        -- --tables 25 --seconds 30
    python bench/turns.py --a CHECKOUT=../before --b WEB_PROXY=haproxy --runs 5 \\
        -- --tables 200 --think 1-3 --seconds 180

Each run starts ``./dev run`` afresh with the variant's environment (space-separated
``NAME=value`` pairs, see ``durak_site.ops.alternatives``; ``CHECKOUT=DIR`` runs another
checkout's ``./dev run`` and load client, such as the code before a change; both checkouts
need the same ``DURAK_VAR_DIR``) and ``TRUSTED_PROXY_COUNT=1``, waits
until it is healthy with all its web processes beating, runs ``bench/load.py`` with the
arguments after ``--``, and stops the platform again. Taking turns spreads the machine's swings
over both variants alike. Printed: each run's moves/s, last-seat p50 and p99, and each process's
CPU per move (ms of CPU for each move made; web processes numbered busiest first), then the
median and the spread (lowest to highest) of each figure per variant. ``--json FILE`` keeps
every run's full figures. The platform's own log of each run is under ``var/turns/``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from durak_site.ops import alternatives  # noqa: E402

# How long a platform may take to come up (migrations, the embedded servers) and to stop.
START_SECONDS = 180.0
STOP_SECONDS = 30.0
WEB_ROLES = ("daphne",)
# A variant's checkout of the platform, when not this one.
CHECKOUT = "CHECKOUT"


def variant_environment(spec: str) -> dict[str, str]:
    """``NAME=value NAME=value`` as a mapping; each alternative's value must be one it offers,
    and a CHECKOUT must be a checkout of the platform."""
    env = {}
    for pair in spec.split():
        name, separator, value = pair.partition("=")
        if not separator or not name:
            raise ValueError(f"a variant is NAME=value pairs, not {pair!r}")
        env[name] = value
    if CHECKOUT in env and not (Path(env[CHECKOUT]) / "dev").is_file():
        raise ValueError(f"CHECKOUT={env[CHECKOUT]} has no ./dev")
    for alternative in alternatives.EVERY_ALTERNATIVE:
        alternative.chosen(env)
    return env


def healthy(url: str, web_processes: int) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
            body = json.load(answer)
    except (OSError, ValueError, urllib.error.URLError):
        return False
    return body.get("status") == "ok" and body["processes"]["web"] >= web_processes


class Platform:
    """``./dev run`` with a variant's environment, in its own process group."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.root = Path(env.get(CHECKOUT, ROOT))
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Platform:
        log_path = self.log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [str(self.root / "dev"), "run"],
                cwd=self.root,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def wait_healthy(self, url: str, web_processes: int) -> None:
        deadline = time.monotonic() + START_SECONDS
        while not healthy(url, web_processes):
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"./dev run exited with {self.process.returncode}: see {self.log_path}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"the platform was not healthy in {START_SECONDS:g} s")
            time.sleep(0.5)

    def __exit__(self, *exc_info) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def run_figures(report: dict[str, Any]) -> dict[str, float]:
    """The compared figures of one load run: moves/s, last-seat p50 and p99, and ms of CPU per
    move of each process (web processes busiest first, PostgreSQL's summed)."""
    play = report["runs"]["play"]
    moves_per_second = play["moves_per_second"] or 0.0
    figures = {
        "moves/s": moves_per_second,
        "last seat p50 ms": play["latency_ms"]["last_seat"]["p50"],
        "last seat p99 ms": play["latency_ms"]["last_seat"]["p99"],
        "errors": sum(play["errors"].values()),
    }
    by_role: dict[str, list[float]] = defaultdict(list)
    for row in play["processes"]:
        by_role[row["process"].split(":")[0]].append(row["cpu_percent"])
    web = sorted((cpu for role in WEB_ROLES for cpu in by_role.pop(role, [])), reverse=True)
    named = {f"web {rank}": cpu for rank, cpu in enumerate(web, 1)}
    named |= {role: sum(cpus) for role, cpus in sorted(by_role.items())}
    for name, cpu_percent in named.items():
        # A share of a core over the run, for each move made in a second: ms per move.
        per_move = 10 * cpu_percent / moves_per_second if moves_per_second else None
        figures[f"CPU/move {name} ms"] = round(per_move, 2) if per_move is not None else None
    return figures


def summary(runs: list[dict[str, float]]) -> dict[str, tuple[float, float, float]]:
    """Per figure: median, lowest, highest over the runs that have it."""
    names = dict.fromkeys(name for run in runs for name in run)
    result = {}
    for name in names:
        values = [run[name] for run in runs if run.get(name) is not None]
        if values:
            result[name] = (round(statistics.median(values), 2), min(values), max(values))
    return result


def print_summary(labels: dict[str, str], results: dict[str, list[dict[str, float]]]) -> None:
    summaries = {key: summary(runs) for key, runs in results.items()}
    names = dict.fromkeys(name for rows in summaries.values() for name in rows)
    print("\n== median (lowest - highest) per variant")
    for key, label in labels.items():
        print(f"  {key}: {label}  ({len(results[key])} runs)")
    print(f"  {'figure':<28}" + "".join(f"{key:>26}" for key in labels))
    for name in names:
        cells = []
        for key in labels:
            row = summaries[key].get(name)
            cells.append(f"{row[0]:g} ({row[1]:g} - {row[2]:g})" if row else "-")
        print(f"  {name:<28}" + "".join(f"{cell:>26}" for cell in cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help='variant A, e.g. "CHECKOUT=../before"')
    parser.add_argument("--b", required=True, help='variant B, e.g. "WEB_PROXY=haproxy"')
    parser.add_argument("--runs", type=int, default=5, help="runs of each variant")
    parser.add_argument("--port", type=int, default=8000, help="where ./dev run listens")
    parser.add_argument("--json", help="write every run's full figures to this file")
    parser.add_argument("load_args", nargs="*", help="bench/load.py's arguments, after --")
    args = parser.parse_args(argv)
    try:
        variants = {"A": variant_environment(args.a), "B": variant_environment(args.b)}
    except ValueError as error:
        parser.error(str(error))
    labels = {"A": args.a, "B": args.b}
    url = f"http://127.0.0.1:{args.port}"
    web_processes = max(1, int(os.environ.get("WEB_PROCESSES") or os.cpu_count() or 1))
    results: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    reports: list[dict[str, Any]] = []
    turns_dir = ROOT / "var" / "turns"
    for number in range(2 * args.runs):
        key = "AB"[number % 2]
        env = {
            **os.environ,
            "TRUSTED_PROXY_COUNT": "1",
            "PORT": str(args.port),
            **variants[key],
        }
        figures_path = turns_dir / f"run-{number + 1}-{key}.json"
        print(f"\n## run {number + 1} of {2 * args.runs}: {key} ({labels[key]})", flush=True)
        with Platform(env, turns_dir / f"run-{number + 1}-{key}.log") as platform:
            platform.wait_healthy(url, web_processes)
            # The variant's own load client: it plays through that checkout's services.
            subprocess.run(
                [sys.executable, str(platform.root / "bench" / "load.py"), "--url", url]
                + [*args.load_args, "--json", str(figures_path)],
                cwd=platform.root,
                env=env,
                check=True,
            )
        report = json.loads(figures_path.read_text())
        figures = run_figures(report)
        results[key].append(figures)
        reports.append({"variant": key, "environment": labels[key], "figures": figures, **report})
        print(f"## run {number + 1} {key}: " + ", ".join(f"{n} {v}" for n, v in figures.items()))
    print_summary(labels, results)
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
