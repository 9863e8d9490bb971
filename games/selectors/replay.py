"""Replaying a game from its seed and its event log (the provably fair deal)."""

from __future__ import annotations

import hashlib

from games.engine import Game as EngineGame
from games.engine import split_bank
from games.engine.autoplay import auto_play_is_endless, final_places
from games.models import Game
from wallet.models import Account, Entry, LedgerTransaction


def replay_game(game: Game) -> list[EngineGame]:
    """Engine snapshots: index 0 is the deal from the seed, index v the state after version v.

    The table options are those recorded with the game (its own columns, not its state, which
    the replay checks). Raises ValueError (IllegalAction included) if the log does not replay.
    """
    engine = EngineGame.new(players=len(game.players), seed=game.seed, options=game.options)
    snapshots = [engine.copy()]
    for event in game.events.order_by("version"):
        if event.version != len(snapshots):
            raise ValueError(f"the event log skips from version {len(snapshots) - 1}")
        engine.apply(event.seat, event.action)
        snapshots.append(engine.copy())
    return snapshots


def _stored_state(game: Game) -> dict | None:
    """The stored state as the engine writes it now (a state from before table options were
    stored gains the defaults); None if it is damaged."""
    try:
        return EngineGame.from_dict(game.state).to_dict()
    except ValueError:
        return None


def verify_game(game: Game) -> list[str]:
    """Everything that does not match when the game is replayed from its seed; [] when fair.

    Checks the seed against its published hash, the stored state and version against the
    replay, and for a finished game the places (a stalemate only if the server's moves from the
    final position would indeed repeat forever), the payouts (split_bank of the bank less the
    recorded commission) and the ledger's settlement.
    """
    problems = []
    if hashlib.sha256(game.seed.encode()).hexdigest() != game.seed_hash:
        problems.append("the seed does not match the published seed hash")
    try:
        snapshots = replay_game(game)
    except ValueError as error:
        return [*problems, f"the event log does not replay: {error}"]
    final = snapshots[-1]
    if game.version != len(snapshots) - 1:
        problems.append(f"version {game.version} but {len(snapshots) - 1} events")
    if final.to_dict() != _stored_state(game):
        problems.append("the stored state differs from the replayed one")
    if game.status != Game.Status.FINISHED:
        return problems
    if game.stalemate:
        if final.finished or not auto_play_is_endless(final):
            return [*problems, "the game is marked a stalemate but the server's moves would end it"]
    elif not final.finished:
        return [*problems, "the game is marked finished but the replay is not over"]
    if game.commission is None or not game.percentages or game.commission > game.bank:
        return [*problems, "the commission or the percentages were not recorded"]
    expected = split_bank(
        game.bank - game.commission, final_places(final, stalemate=game.stalemate), game.percentages
    )
    recorded = {share.seat: share for share in game.distribution.all()}
    if set(recorded) != set(expected):
        problems.append(f"distribution rows for seats {sorted(recorded)}")
    for seat, amount in expected.items():
        share = recorded.get(seat)
        if share is not None and (share.amount, share.user_id) != (amount, game.players[seat]):
            problems.append(
                f"seat {seat}: recorded {share.amount} to user {share.user_id}, "
                f"replay gives {amount} to user {game.players[seat]}"
            )
    paid: dict[int, int] = {}
    for user_id, amount in Entry.objects.filter(
        transaction__kind=LedgerTransaction.Kind.BANK_SETTLE,
        transaction__game_id=game.pk,
        account__kind=Account.Kind.USER,
    ).values_list("account__user_id", "amount"):
        paid[user_id] = paid.get(user_id, 0) + amount
    owed: dict[int, int] = {}
    for seat, amount in expected.items():
        if amount:
            owed[game.players[seat]] = owed.get(game.players[seat], 0) + amount
    if paid != owed:
        problems.append(f"the ledger paid {paid}, the replay owes {owed}")
    return problems
