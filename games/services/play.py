"""Playing a game: the deal, the players' moves, the deadlines and the server's moves when
they pass, the away mark, and the bank at the end (RULES.md §3-§6)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.module_loading import import_string

from games import effects, persistence, presence
from games.engine import DEFAULT_PERCENTAGES, IllegalAction, bank_shares
from games.engine import Game as EngineGame
from games.engine.autoplay import auto_play_is_endless, final_places
from games.errors import ERROR_MESSAGES, GameError
from games.models import (
    PRACTICE_PLAYER_SEAT,
    REMATCH_SECONDS,
    SERVER_MOVE_KINDS,
    BankDistribution,
    Game,
    GameEvent,
    PayoutScheme,
    Seat,
    Table,
)
from games.selectors import tables
from games.services import notices, rating
from games.services._locks import is_int, lock_game
from games.services.bank import bank_settle

# Timeouts in a row that mark a player away (RULES.md §5).
AWAY_AFTER_TIMEOUTS = 2


def game_start(*, table: Table, listed: bool = True) -> Game:
    """Deal a new game for the seated players (table row locked by the caller). `listed`:
    whether the table is in the lobby until now (a rematch's left it with the first game)."""
    seats = seated(table)
    seed = new_seed()
    engine = EngineGame.new(players=len(seats), seed=seed, options=table.options)
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
        ratings=None if table.practice else rating.ratings_at_start([s.user_id for s in seats]),
        **table.options,
    )
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    # Players without an open socket have had none since the deal: they did not drop with the
    # table (drop_grace_until). Bots have no sockets.
    people = [seat for seat in seats if not table.practice or seat.position == PRACTICE_PLAYER_SEAT]
    connected = presence.connected(table.pk, [seat.user_id for seat in people])
    absent = [seat.pk for seat in people if seat.user_id not in connected]
    Seat.objects.filter(pk__in=absent).update(disconnected_at=game.started_at)
    # The table leaves the lobby.
    advance_and_save(Change(table, game, engine, seats), lobby=listed)
    effects.notify_players(
        table=table, user_ids=game.players, kind=notices.START, until=game.deadline
    )
    return game


def game_apply_action(*, game_id: int, user, action: dict, expected_version: int) -> Game:
    """Play the user's move: checked, stored with its event and the next deadline, at once.

    Three statements whatever the length of the game: lock the table and the game, read the
    seats, insert the events and update the game.
    """
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
        position = game.players.index(user.pk)
        change = Change(table, game, EngineGame.from_dict(game.state), seated(table))
        try:
            change.play(position, action, automatic=False)
        except IllegalAction as error:
            raise GameError(
                error.code, ERROR_MESSAGES.get(error.code, ERROR_MESSAGES["malformed"])
            ) from error
        # Acting himself brings a player back from away and clears his timeouts.
        mover = change.seat_at(position)
        if mover.server_moves or mover.away:
            mover.server_moves, mover.away = {}, False
            mover.save(update_fields=["server_moves", "away"])
        advance_and_save(change)
    return game


def game_timeout(*, game_id: int, version: int) -> bool:
    """Act for every idle waited-on seat if `version` is current and its deadline has passed:
    the only way the server ever moves for a player. Each such move counts against him; two in
    a row mark him away.

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
        change = Change(table, game, EngineGame.from_dict(game.state), seated(table))
        engine = change.engine
        grace = drop_grace_until(change)
        if grace is not None:
            # Everyone dropped at once: the deadline waits for the grace, and the table says so.
            game.deadline = grace
            game.save(update_fields=["deadline"])
            effects.announce(table=table, lobby=False)
            return False
        bout = engine.bouts
        timed_out = []
        for position in engine.waiting_for:
            # Passes do not change whom else the game waits for; the bout's end does.
            if engine.finished or engine.bouts != bout or position not in engine.waiting_for:
                break
            action = engine.timeout_action(position)
            change.play(position, action, automatic=True)
            seat = change.seat_at(position)
            kind = SERVER_MOVE_KINDS[action["type"]]
            seat.server_moves = {**seat.server_moves, kind: seat.server_moves.get(kind, 0) + 1}
            seat.away = seat.away or seat.timeouts_in_a_row >= AWAY_AFTER_TIMEOUTS
            timed_out.append(seat)
        Seat.objects.bulk_update(timed_out, ["server_moves", "away"])
        advance_and_save(change)
    return True


def drop_grace_until(change: Change) -> datetime | None:
    """While every player still in the game has lost his connection since about the same
    moment (within ``TABLE_DROP_WINDOW_SECONDS``), the end of the grace before the server plays
    for them; None otherwise, or once it is over. Such a drop is most likely the platform's
    (its network, a proxy) rather than theirs, and the clocks stop while the platform is down.
    Players absent from the deal did not drop, and a practice table has one player: no grace
    for them."""
    if change.table.practice:
        return None
    still_in = change.engine.still_in
    drops = [seat.disconnected_at for seat in change.seats if seat.position in still_in]
    if len(drops) < 2 or None in drops or min(drops) <= change.game.started_at:
        return None
    if max(drops) - min(drops) > timedelta(seconds=settings.TABLE_DROP_WINDOW_SECONDS):
        return None
    until = max(drops) + timedelta(seconds=settings.TABLE_DROP_GRACE_SECONDS)
    return until if until > timezone.now() else None


def deadline_seconds(table: Table, engine: EngineGame, seats: list[Seat]) -> int:
    """How long the game waits for the seats it waits for now (RULES.md §5): a turn time for
    the leader or the defender, the throw-in window for the throwers, and for a leader or a
    defender marked away the throw-in window too."""
    if engine.deadline_kind != "turn":
        return table.throw_seconds
    away = {seat.position for seat in seats if seat.away}
    return table.throw_seconds if away.issuperset(engine.waiting_for) else table.turn_seconds


def seated(table: Table) -> list[Seat]:
    """The table's active seats with their users' nicknames, by position."""
    return persistence.table_seats(table.pk)


class Change:
    """The moves of one command: applied to the engine, kept in memory, stored at once."""

    def __init__(self, table: Table, game: Game, engine: EngineGame, seats: list[Seat]) -> None:
        self.table, self.game, self.engine, self.seats = table, game, engine, seats
        self.version_before = game.version
        self.waiting_before = engine.waiting_for  # whose turn begins with the change
        self.events: list[GameEvent] = []
        self.public: list[dict] = []  # the same moves as every seat sees them

    def turns_begun(self) -> list[int]:
        """The seats the game waits on now and did not before the change."""
        return [seat for seat in self.engine.waiting_for if seat not in self.waiting_before]

    def seat_at(self, position: int) -> Seat:
        return next(seat for seat in self.seats if seat.position == position)

    def play(self, position: int, action: dict, *, automatic: bool) -> None:
        """Apply one move; IllegalAction leaves everything unchanged."""
        engine = self.engine
        bout = engine.bouts
        # A move on an empty table opens its bout (tables.mark_leads says the same).
        lead = not engine.view(None)["table"]
        engine.apply(position, action)
        self.game.version += 1
        self.events.append(
            GameEvent(
                game=self.game,
                version=self.game.version,
                bout=bout,
                seat=position,
                action=action,
                automatic=automatic,
            )
        )
        self.public.append(
            {
                "version": self.game.version,
                "bout": bout,
                "seat": position,
                "action": action,
                "automatic": automatic,
                "lead": lead,
            }
        )


def advance_and_save(change: Change, *, lobby: bool = False) -> None:
    """Finish the game or set its next deadline; save; publish.

    When everyone still in is away and the server's moves for them would repeat forever, the
    game ends at once in a stalemate: they share the places still to be given.
    """
    table, game, engine = change.table, change.game, change.engine
    away = {seat.position for seat in change.seats if seat.away}
    if not engine.finished and away.issuperset(engine.still_in) and auto_play_is_endless(engine):
        game.stalemate = True
    game.state = engine.to_dict()
    nicknames = {seat.user_id: seat.user.username for seat in change.seats}
    result = None
    if engine.finished or game.stalemate:
        shares, ratings = _game_finish(change)
        result = tables.result_of(game, nicknames, shares, ratings)
    else:
        seconds = deadline_seconds(table, engine, change.seats)
        # The deadline loop (games.deadlines) finds it by this indexed column.
        game.deadline = timezone.now() + timedelta(seconds=seconds)
        game.resumed_at = None  # a move made: nobody is owed time for an outage any more
        persistence.moves_store(game, change.events)
        if table.practice and any(seat != PRACTICE_PLAYER_SEAT for seat in engine.waiting_for):
            effects.schedule_bot_move(game_id=game.pk, version=game.version)
    effects.publish(
        tables.TableSnapshot(
            table,
            game,
            engine,
            {seat.position: seat for seat in change.seats if seat.left_at is None},
            nicknames,
            result,
        ),
        events=change.public,
        events_from=change.version_before,
        lobby=lobby and not table.private,
    )
    if result is None:
        effects.notify_players(
            table=table,
            user_ids=[game.players[seat] for seat in change.turns_begun()],
            kind=notices.TURN,
            until=game.deadline,
        )


def _game_finish(
    change: Change,
) -> tuple[list[BankDistribution], dict[int, tuple[int, int]]]:
    """Settle the bank by places, record the distribution and update the ratings, reveal the
    seed, close the table, and store it all with the last moves. A practice game only records
    its places. The bank's shares, in place order, and the players' shown ratings before and
    after the game by user id (none when the game is not rated)."""
    table, game = change.table, change.game
    players = len(game.players)
    scheme = PayoutScheme.objects.filter(players=players).first()
    percentages = list(scheme.percentages if scheme else DEFAULT_PERCENTAGES[players])
    places = final_places(change.engine, stalemate=game.stalemate)
    ratings: dict[int, tuple[int, int]] = {}
    if table.practice or table.tournament_id is not None:
        shares, commission = bank_shares(0, places, percentages), 0
    else:
        settlement = bank_settle(
            table_id=table.pk,
            game_id=game.pk,
            bank=game.bank,
            commission_percent=table.commission_percent,
            places=places,
            seat_users=dict(enumerate(game.players)),
            percentages=percentages,
        )
        shares, commission = settlement.shares, settlement.commission
        if not game.stalemate:
            ratings = rating.rating_record_game(game=game, places=places)
    now = timezone.now()
    distribution = [
        BankDistribution(
            game=game,
            user_id=game.players[share.seat],
            seat=share.seat,
            place=share.place,
            percent=(Decimal(share.percent.numerator) / share.percent.denominator).quantize(
                Decimal("0.0001")
            ),
            amount=share.amount,
        )
        for share in shares
    ]
    game.commission = commission
    game.percentages = percentages
    game.status = Game.Status.FINISHED
    game.finished_at = now
    # A practice game offers no rematch: a new one is one click on its result. A tournament
    # seats its players itself.
    rematch = not table.practice and table.tournament_id is None
    game.rematch_until = now + timedelta(seconds=REMATCH_SECONDS) if rematch else None
    game.deadline = None
    for seat in change.seats:
        seat.left_at = now
    table.status = Table.Status.CLOSED
    persistence.game_finish_store(game, table, change.events, distribution, now)
    if table.tournament_id is not None:
        # The tournaments sit above the games: they are found by name, as the ledger audits.
        tournament_game_finished = import_string(settings.TOURNAMENT_GAME_FINISHED)
        tournament_game_finished(
            tournament_id=table.tournament_id,
            game=game,
            places=[[game.players[seat] for seat in group] for group in places],
            away={seat.user_id for seat in change.seats if seat.away},
        )
    return sorted(distribution, key=lambda share: (share.place, share.seat)), ratings


def new_seed() -> str:
    """256 bits from the OS's secure generator: nobody can predict or steer the deal."""
    return secrets.token_hex(32)
