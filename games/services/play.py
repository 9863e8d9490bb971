"""Playing a game: the deal, the players' moves, the deadlines, the server's moves for away
players and the bank at the end (RULES.md §3-§6)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from games import effects, presence
from games.engine import DEFAULT_PERCENTAGES, IllegalAction
from games.engine import Game as EngineGame
from games.errors import ERROR_MESSAGES, GameError
from games.models import BankDistribution, Game, GameEvent, PayoutScheme, Seat, Table
from games.replay import auto_play_is_endless, final_places, seats_still_in
from games.services._locks import active_seats, is_int, lock_game
from wallet import services as wallet_services

# Away players are played for at once; this bounds one chain of such moves so a table of
# away players still advances through its deadlines instead of in one endless transaction.
AUTO_MOVES_PER_CHANGE = 300


def game_start(*, table: Table) -> Game:
    """Deal a new game for the seated players (table row locked by the caller)."""
    seats = list(table.seat_set.filter(left_at__isnull=True).order_by("position"))
    seed = new_seed()
    engine = EngineGame.new(players=len(seats), seed=seed)
    number = (table.games.aggregate(last=Max("number"))["last"] or 0) + 1
    game = Game.objects.create(
        table=table,
        number=number,
        state=engine.to_dict(),
        version=0,
        seed=seed,
        seed_hash=hashlib.sha256(seed.encode()).hexdigest(),
        players=[seat.user_id for seat in seats],
        stake=table.stake,
        bank=table.stake * len(seats),
    )
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    # Players without an open socket start the away clock now, as if they had just left.
    connected = presence.connected(table.pk, game.players)
    Seat.objects.filter(pk__in=[seat.pk for seat in seats if seat.user_id not in connected]).update(
        disconnected_at=timezone.now()
    )
    advance_and_save(table=table, game=game, engine=engine)
    return game


def game_apply_action(*, game_id: int, user, action: dict, expected_version: int) -> Game:
    """Play the user's move: checked, stored with its event and the next deadline, at once."""
    if not is_int(expected_version):
        raise GameError("stale_version")
    with transaction.atomic(durable=True):
        table, game = lock_game(game_id)
        if game.status != Game.Status.PLAYING:
            raise GameError("game_finished")
        if user.pk not in game.players:
            raise GameError("not_a_player")
        if expected_version != game.version:
            raise GameError("stale_version")
        seat = game.players.index(user.pk)
        engine = EngineGame.from_dict(game.state)
        bout = engine.bouts
        try:
            engine.apply(seat, action)
        except IllegalAction as error:
            raise GameError(
                error.code, ERROR_MESSAGES.get(error.code, ERROR_MESSAGES["malformed"])
            ) from error
        # Acting himself brings a player back from away and clears his timeouts.
        active_seats(table).filter(position=seat).exclude(
            consecutive_timeouts=0, away=False
        ).update(consecutive_timeouts=0, away=False)
        _record(game=game, seat=seat, action=action, bout=bout, automatic=False)
        advance_and_save(table=table, game=game, engine=engine)
    return game


def game_timeout(*, game_id: int, version: int) -> bool:
    """Act for every idle waited-on seat if `version` is current and its deadline has passed.

    Idempotent: a second call for the same version finds the version moved on and does nothing.
    """
    with transaction.atomic(durable=True):
        try:
            table, game = lock_game(game_id)
        except GameError:
            return False
        now = timezone.now()
        if (
            game.status != Game.Status.PLAYING
            or game.version != version
            or game.deadline is None
            or game.deadline > now
        ):
            return False
        engine = EngineGame.from_dict(game.state)
        bout = engine.bouts
        timed_out = []
        for seat in engine.waiting_for:
            # Passes do not change whom else the game waits for; the bout's end does.
            if engine.finished or engine.bouts != bout or seat not in engine.waiting_for:
                break
            action = engine.timeout_action(seat)
            engine.apply(seat, action)
            _record(game=game, seat=seat, action=action, bout=bout, automatic=True)
            timed_out.append(seat)
        seats = active_seats(table).filter(position__in=timed_out)
        seats.update(consecutive_timeouts=F("consecutive_timeouts") + 1)
        seats.filter(consecutive_timeouts__gte=2).update(away=True)
        advance_and_save(table=table, game=game, engine=engine)
    return True


def _record(*, game: Game, seat: int, action: dict, bout: int, automatic: bool) -> None:
    game.version += 1
    GameEvent.objects.create(
        game=game, version=game.version, bout=bout, seat=seat, action=action, automatic=automatic
    )


def advance_and_save(*, table: Table, game: Game, engine: EngineGame) -> None:
    """Play for away players, then finish the game or set its next deadline; save; announce.

    When everyone still in is away and the server's moves for them would repeat forever, the
    game ends at once in a stalemate: they share the places still to be given.
    """
    away = set(active_seats(table).filter(away=True).values_list("position", flat=True))
    checked: list[int] | None = None
    for _move in range(AUTO_MOVES_PER_CHANGE):
        if engine.finished:
            break
        still_in = seats_still_in(engine)
        if still_in != checked:  # the answer changes only when someone leaves
            checked = still_in
            if away.issuperset(still_in) and auto_play_is_endless(engine):
                game.stalemate = True
                break
        seat = next((seat for seat in engine.waiting_for if seat in away), None)
        if seat is None:
            break
        action = engine.timeout_action(seat)
        bout = engine.bouts
        engine.apply(seat, action)
        _record(game=game, seat=seat, action=action, bout=bout, automatic=True)
    game.state = engine.to_dict()
    if engine.finished or game.stalemate:
        _game_finish(table=table, game=game, engine=engine)
    else:
        seconds = table.turn_seconds if engine.deadline_kind == "turn" else table.throw_seconds
        game.deadline = timezone.now() + timedelta(seconds=seconds)
        game.save()
        effects.schedule_deadline(game_id=game.pk, version=game.version, eta=game.deadline)
    effects.announce(table=table, version=game.version)


def _game_finish(*, table: Table, game: Game, engine: EngineGame) -> None:
    """Settle the bank by places, record the distribution, reveal the seed, close the table."""
    players = len(game.players)
    scheme = PayoutScheme.objects.filter(players=players).first()
    percentages = list(scheme.percentages if scheme else DEFAULT_PERCENTAGES[players])
    places = final_places(game, engine)
    settlement = wallet_services.bank_settle(
        table_id=table.pk,
        game_id=game.pk,
        bank=game.bank,
        commission_percent=table.commission_percent,
        places=places,
        seat_users=dict(enumerate(game.players)),
        percentages=percentages,
    )
    now = timezone.now()
    shares = []
    taken = 0
    for group in places:
        pooled = Decimal(sum(percentages[taken : taken + len(group)])) / len(group)
        for seat in group:
            shares.append(
                BankDistribution(
                    game=game,
                    user_id=game.players[seat],
                    seat=seat,
                    place=taken + 1,
                    percent=pooled.quantize(Decimal("0.0001")),
                    amount=settlement.payouts.get(seat, 0),
                )
            )
        taken += len(group)
    BankDistribution.objects.bulk_create(shares)
    game.commission = settlement.commission
    game.percentages = percentages
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.deadline = None
    game.save()
    active_seats(table).update(left_at=now)
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])


def new_seed() -> str:
    """256 bits from the OS's secure generator: nobody can predict or steer the deal."""
    return secrets.token_hex(32)
