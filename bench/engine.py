"""Engine speed: python bench/engine.py [--games N] [--seed S] [--repeat R].

For 2, 4 and 6 players, plays random legal games and prints the median time of one step
(legal_actions for every seat plus one apply) and random playouts per second. With --repeat R
every game is played R times over with the same moves and each step keeps its fastest time:
on a machine other processes keep busy, that leaves out the time they took.
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


def step_times(players: int, games: int, rng: random.Random, repeat: int = 1) -> list[int]:
    """Nanoseconds per step over `games` random games; choosing the move is not timed."""
    clock = time.perf_counter_ns
    seats = range(players)
    times = []
    for _ in range(games):
        seed = rng.getrandbits(63)
        game = Game.new(players=players, seed=seed)
        moves = []
        game_times = []
        while not game.finished:
            started = clock()
            legal = [game.legal_actions(seat) for seat in seats]
            listed = clock() - started
            seat = rng.choice([seat for seat in seats if legal[seat]])
            action = rng.choice(legal[seat])
            started = clock()
            game.apply(seat, action)
            game_times.append(listed + clock() - started)
            moves.append((seat, action))
        for _ in range(repeat - 1):
            game = Game.new(players=players, seed=seed)
            for step, (seat, action) in enumerate(moves):
                started = clock()
                for other in seats:
                    game.legal_actions(other)
                game.apply(seat, action)
                game_times[step] = min(game_times[step], clock() - started)
        times += game_times
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
    parser.add_argument("--repeat", type=int, default=1, help="plays of each game, fastest kept")
    args = parser.parse_args()
    print(
        f"python {sys.version.split()[0]}, {args.games} games per size, seed {args.seed}, "
        f"each played {args.repeat} times"
    )
    print("players  median µs/step  p90 µs/step  steps   playouts/s")
    for players in (2, 4, 6):
        rng = random.Random(args.seed)
        times = sorted(step_times(players, args.games, rng, args.repeat))
        median = statistics.median(times) / 1000
        p90 = times[len(times) * 9 // 10] / 1000
        rate = playouts_per_second(players, args.seconds, rng)
        print(f"{players:7d}  {median:14.2f}  {p90:11.2f}  {len(times):6d}  {rate:10.1f}")


if __name__ == "__main__":
    main()
