"""Bots against bots over many seeded games: python -m games.engine.arena [--games N].

Table options (RULES.md §7) apply to every game: ``--deck 24 --transfer off --throw-in
neighbours --limit classic``; the defaults are the default table.

Each matchup seats its levels round the table, rotating them one seat per game so every level
plays every seat equally, and plays seeded deals to the end. Bots act when the game waits for
them, each from its seat's view and the public move log only. The table printed holds, per
matchup and level: the durak rate with its 95 % (Wilson) confidence interval, the share of
decided games won (two players), and the milliseconds per decision with a choice (median and
95th percentile).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .bots import AMATEUR, LEVELS, MASTER, NOVICE, decide
from .game import OPTION_VALUES, OPTIONS, Game

NAMES = {NOVICE: "Новичок", AMATEUR: "Любитель", MASTER: "Мастер"}
MATCHUPS: dict[str, tuple[str, ...]] = {
    "master-3amateur": (MASTER, AMATEUR, AMATEUR, AMATEUR),
    "master-amateur": (MASTER, AMATEUR),
    "amateur-novice": (AMATEUR, NOVICE),
    "amateur-3novice": (AMATEUR, NOVICE, NOVICE, NOVICE),
}
# A game longer than this is a cycle of moves; it ends as a draw.
MAX_MOVES = 3000
Z95 = 1.959964


@dataclass
class Tally:
    """One level's results in one matchup."""

    seats: int = 0  # seat-games played
    duraks: int = 0
    wins: int = 0  # two players: games this level won
    decided: int = 0  # two players: games with a durak
    decision_ms: list[float] = field(default_factory=list)


def play_game(
    levels: tuple[str, ...], seed: int, options: dict[str, Any] | None = None
) -> tuple[int | None, dict[int, list[float]]]:
    """One game of `levels` by seat; returns the durak seat and each seat's decision times."""
    rng = random.Random(seed)
    game = Game.new(players=len(levels), seed=seed, options=options)
    log: list[dict] = []
    times: dict[int, list[float]] = defaultdict(list)
    for _ in range(MAX_MOVES):
        if game.finished:
            return game.durak, times
        waiting = game.waiting_for
        seat = min(waiting, key=lambda seat: (seat - game.attacker) % game.players)
        view = game.view(seat)
        started = time.perf_counter()
        action = decide(view, log, levels[seat], rng)
        if len(view["legal_actions"]) > 1:
            times[seat].append((time.perf_counter() - started) * 1000)
        log.append({"bout": game.bouts, "seat": seat, "action": action})
        game.apply(seat, action)
    return None, times


def _play(
    job: tuple[str, int, int, dict[str, Any] | None],
) -> tuple[str, tuple[str, ...], int | None, dict]:
    matchup, index, seed, options = job
    levels = MATCHUPS[matchup]
    shift = index % len(levels)
    seated = levels[shift:] + levels[:shift]
    durak, times = play_game(seated, seed, options)
    return matchup, seated, durak, times


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if not trials:
        return 0.0, 1.0
    share = successes / trials
    spread = Z95 * math.sqrt(share * (1 - share) / trials + Z95**2 / (4 * trials**2))
    centre = share + Z95**2 / (2 * trials)
    scale = 1 + Z95**2 / trials
    return (centre - spread) / scale, (centre + spread) / scale


def run(
    matchups: list[str],
    games: int,
    seed: int,
    jobs: int,
    options: dict[str, Any] | None = None,
) -> dict[str, dict[str, Tally]]:
    rng = random.Random(seed)
    work = [
        (name, index, rng.getrandbits(63), options) for name in matchups for index in range(games)
    ]
    tallies: dict[str, dict[str, Tally]] = {name: defaultdict(Tally) for name in matchups}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for matchup, seated, durak, times in pool.map(_play, work, chunksize=4):
            for seat, level in enumerate(seated):
                tally = tallies[matchup][level]
                tally.seats += 1
                tally.duraks += durak == seat
                tally.decision_ms += times.get(seat, [])
                if len(seated) == 2 and durak is not None:
                    tally.decided += 1
                    tally.wins += durak != seat
    return tallies


def report(tallies: dict[str, dict[str, Tally]]) -> list[str]:
    lines = [
        "| matchup | level | seat-games | durak rate | 95 % CI | won of decided "
        "| ms/decision p50 | p95 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for matchup, by_level in tallies.items():
        for level in MATCHUPS[matchup]:
            if level not in by_level:
                continue
            tally = by_level.pop(level)
            low, high = wilson(tally.duraks, tally.seats)
            won = f"{tally.wins / tally.decided:.1%}" if tally.decided else "–"
            times = sorted(tally.decision_ms)
            median = statistics.median(times) if times else 0.0
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0
            lines.append(
                f"| {matchup} | {NAMES[level]} | {tally.seats} "
                f"| {tally.duraks / tally.seats:.1%} | {low:.1%}–{high:.1%} | {won} "
                f"| {median:.1f} | {p95:.1f} |"
            )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per matchup")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--matchups", nargs="+", choices=sorted(MATCHUPS), default=list(MATCHUPS))
    parser.add_argument("--transfer", choices=["on", "off"], default="on")
    parser.add_argument("--deck", type=int, choices=OPTION_VALUES["deck"], default=OPTIONS["deck"])
    parser.add_argument(
        "--throw-in", choices=OPTION_VALUES["throw_in"], default=OPTIONS["throw_in"]
    )
    parser.add_argument("--limit", choices=OPTION_VALUES["limit"], default=OPTIONS["limit"])
    args = parser.parse_args(argv)
    options = {
        "transfer": args.transfer == "on",
        "deck": args.deck,
        "throw_in": args.throw_in,
        "limit": args.limit,
    }
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    started = time.perf_counter()
    tallies = run(args.matchups, args.games, args.seed, args.jobs, options)
    print(
        f"options {options}, games per matchup {args.games}, seed {args.seed}, "
        f"jobs {args.jobs}, load average at start {load:.2f}, "
        f"{time.perf_counter() - started:.0f} s"
    )
    print("\n".join(report(tallies)))


if __name__ == "__main__":
    main()

__all__ = ["LEVELS", "main", "play_game", "wilson"]
