"""The endgame solver: the same outcomes as a plain search of every line, and true puzzles."""

from __future__ import annotations

import random

import pytest

from games.engine import Game
from games.engine.bots import choose_action
from games.engine.cards import CODES, SUITS
from games.engine.endgame import (
    DRAW,
    LOSS,
    WIN,
    Solver,
    TooBig,
    endgame_puzzle,
    is_endgame,
    position_key,
)


def brute_outcome(game: Game, low: int, line: frozenset = frozenset()) -> int:
    """Every line searched with nothing remembered; a position repeated on the line is a draw."""
    if game.finished:
        return DRAW if game.durak is None else LOSS if game.durak == low else WIN
    key = position_key(game)
    if key in line:
        return DRAW
    seat = game.waiting_for[0]
    values = []
    for action in game.legal_actions(seat):
        child = game.copy()
        child.apply(seat, action)
        values.append(brute_outcome(child, low, line | {key}))
    return max(values) if seat == low else min(values)


def brute_escaping(game: Game) -> list[dict]:
    low = min(game.still_in)
    seat = game.waiting_for[0]
    line = frozenset({position_key(game)})
    escaping = []
    for action in game.legal_actions(seat):
        child = game.copy()
        child.apply(seat, action)
        if brute_outcome(child, low, line) != (LOSS if seat == low else WIN):
            escaping.append(action)
    return escaping


def small_endgame(rng: random.Random) -> Game:
    cards = rng.sample(CODES, rng.randint(3, 6))
    cut = rng.randint(1, len(cards) - 1)
    return Game.from_position(
        {
            "hands": [cards[:cut], cards[cut:]],
            "talon": [],
            "trump": rng.choice(SUITS),
            "attacker": rng.randint(0, 1),
            "first_bout": False,
        }
    )


def test_solver_agrees_with_searching_every_line():
    rng = random.Random(41)
    outcomes = set()
    for _ in range(40):
        game = small_endgame(rng)
        # Positions inside bouts too: a few random moves in.
        for _ in range(rng.randint(0, 3)):
            if game.finished:
                break
            seat = game.waiting_for[0]
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        if not is_endgame(game):
            continue
        solver = Solver()
        low = min(game.still_in)
        assert solver.outcome(game) == brute_outcome(game, low)
        assert solver.escaping_moves(game) == (game.waiting_for[0], brute_escaping(game))
        outcomes.add(brute_outcome(game, low))
    assert outcomes >= {LOSS, WIN}  # the positions were not all of one kind


def test_a_known_endgame():
    # Leading the six lets the seven beat it and go out; leading the ace makes seat 1 take it,
    # and then the six goes out while seat 1 keeps the ace.
    game = Game.from_position(
        {"hands": [["6S", "AS"], ["7S"]], "talon": [], "trump": "H", "attacker": 0}
    )
    assert Solver().escaping_moves(game) == (0, [{"type": "attack", "cards": ["AS"]}])
    assert endgame_puzzle(game).answer == {"type": "attack", "cards": ["AS"]}


def test_no_endgame_while_cards_remain_in_the_talon():
    game = Game.new(players=2, seed=7)
    assert not is_endgame(game)
    assert endgame_puzzle(game) is None
    with pytest.raises(ValueError):
        Solver().outcome(game)


def test_too_big_is_refused_not_guessed():
    game = Game.from_position(
        {
            "hands": [["6S", "7S", "8S", "9C", "TD"], ["6H", "7C", "KD", "QS", "AC"]],
            "talon": [],
            "trump": "D",
            "attacker": 0,
        }
    )
    with pytest.raises(TooBig):
        Solver(node_limit=3).outcome(game)
    assert endgame_puzzle(game, Solver(node_limit=3)) is None


@pytest.mark.slow
def test_puzzles_from_real_endgames_have_exactly_one_escaping_move():
    rng = random.Random(4141)
    found = 0
    for game_number in range(16):
        game = Game.new(players=2 + game_number % 2, seed=rng.getrandbits(32))
        solver = Solver()
        while not game.finished:
            puzzle = endgame_puzzle(game, solver)
            if puzzle is not None:
                found += 1
                position = Game.from_dict(puzzle.state)
                assert position_key(position) == position_key(game)
                assert puzzle.seat == position.waiting_for[0]
                assert puzzle.moves == len(position.legal_actions(puzzle.seat)) >= 2
                cards = sum(len(position.hand(seat)) for seat in position.still_in)
                if cards <= 6:  # small enough to search every line
                    assert brute_escaping(position) == [puzzle.answer]
                else:  # each move judged afresh, nothing shared with the finder
                    escaping = [
                        action
                        for action in position.legal_actions(puzzle.seat)
                        if not loses(position, puzzle.seat, action)
                    ]
                    assert escaping == [puzzle.answer]
            seat = game.waiting_for[0]
            game.apply(seat, choose_action(game, seat, rng))
    assert found >= 3


def loses(game: Game, seat: int, action: dict) -> bool:
    child = game.copy()
    child.apply(seat, action)
    if child.finished:
        return child.durak == seat
    outcome = Solver().outcome(child)
    return outcome == (LOSS if seat == min(game.still_in) else WIN)
