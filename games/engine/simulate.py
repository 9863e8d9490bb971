"""Bot games for statistics: python -m games.engine.simulate --players 4 --games 1000."""

from __future__ import annotations

import argparse
import random
import secrets
import time
from collections import Counter

from .bots import play_to_end
from .game import MAX_PLAYERS, MIN_PLAYERS, Game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--players", type=int, default=4, choices=range(MIN_PLAYERS, MAX_PLAYERS + 1)
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=None, help="replays the same run")
    args = parser.parse_args(argv)
    seed = secrets.randbits(32) if args.seed is None else args.seed
    rng = random.Random(seed)

    bouts = 0
    draws = 0
    duraks: Counter[int] = Counter()
    started = time.perf_counter()
    for _ in range(args.games):
        game = play_to_end(Game.new(players=args.players, seed=rng.getrandbits(63)), rng)
        bouts += game.bouts
        if game.durak is None:
            draws += 1
        else:
            duraks[game.durak] += 1
    elapsed = time.perf_counter() - started

    print(f"players {args.players}, games {args.games}, seed {seed}")
    print(f"games/s        {args.games / elapsed:.1f}")
    print(f"average bouts  {bouts / args.games:.2f}")
    print(f"draw rate      {draws / args.games:.3f}")
    for seat in range(args.players):
        print(f"durak seat {seat}   {duraks[seat] / args.games:.3f}")


if __name__ == "__main__":
    main()
