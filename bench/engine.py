"""Engine speed: python bench/engine.py [--games N] [--seed S].

For 2, 4 and 6 players, plays random legal games and prints the median time of one step
(legal_actions for every seat plus one apply) and random playouts per second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Game  # noqa: E402


def step_times(players: int, games: int, rng: random.Random) -> list[int]:
    """Nanoseconds per step over `games` random games; choosing the move is not timed."""
    clock = time.perf_counter_ns
    seats = range(players)
    times = []
    for _ in range(games):
        game = Game.new(players=players, seed=rng.getrandbits(63))
        while not game.finished:
            started = clock()
            legal = [game.legal_actions(seat) for seat in seats]
            listed = clock() - started
            seat = rng.choice([seat for seat in seats if legal[seat]])
            action = rng.choice(legal[seat])
            started = clock()
            game.apply(seat, action)
            times.append(listed + clock() - started)
    return times


def playouts_per_second(players: int, seconds: float, rng: random.Random) -> float:
    seats = range(players)
    played = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        game = Game.new(players=players, seed=rng.getrandbits(63))
        while not game.finished:
            moves = [(seat, action) for seat in seats for action in game.legal_actions(seat)]
            game.apply(*rng.choice(moves))
        played += 1
    return played / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300, help="games timed step by step")
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on playouts")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {args.games} games per size, seed {args.seed}")
    print("players  median µs/step  p90 µs/step  steps   playouts/s")
    for players in (2, 4, 6):
        rng = random.Random(args.seed)
        times = sorted(step_times(players, args.games, rng))
        median = statistics.median(times) / 1000
        p90 = times[len(times) * 9 // 10] / 1000
        rate = playouts_per_second(players, args.seconds, rng)
        print(f"{players:7d}  {median:14.2f}  {p90:11.2f}  {len(times):6d}  {rate:10.1f}")


if __name__ == "__main__":
    main()
