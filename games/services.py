"""Live tables: seating and stakes, the move flow, time, the bank (RULES.md §3-§6).

Every command runs in one short transaction and locks rows in one order: the table, then its
game, then seats; the wallet locks its accounts after that. Broadcasts and deadline tasks leave
the process only on commit.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from decimal import Decimal
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games import presence, selectors
from games.engine import DEFAULT_PERCENTAGES, IllegalAction
from games.engine import Game as EngineGame
from games.models import (
    REMATCH_SECONDS,
    BankDistribution,
    Game,
    GameEvent,
    PayoutScheme,
    Seat,
    Table,
)
from games.replay import auto_play_is_endless, final_places, seats_still_in
from wallet import services as wallet_services
from wallet.services import WalletError

MIN_TURN_SECONDS, MAX_TURN_SECONDS = 5, 300
MIN_THROW_SECONDS, MAX_THROW_SECONDS = 3, 120
MAX_STAKE = 10**12
# Away players are played for at once; this bounds one chain of such moves so a table of
# away players still advances through its deadlines instead of in one endless transaction.
AUTO_MOVES_PER_CHANGE = 300
# The sweeper leaves a just-passed deadline to its own task for this long.
SWEEP_GRACE = timedelta(seconds=1)

ERROR_MESSAGES: dict[str, Promise] = {
    # The engine's codes (games.engine.IllegalAction.code).
    "bad_seat": _("There is no such seat."),
    "malformed": _("The move is malformed."),
    "game_finished": _("The game is over."),
    "not_your_turn": _("It is not your turn."),
    "card_not_in_hand": _("You do not hold that card."),
    "mixed_ranks": _("Lead one card or several cards of one rank."),
    "throw_limit": _("The defender cannot be given more cards than he holds."),
    "rank_not_on_table": _("Throw in only ranks that are on the table."),
    "attack_not_on_table": _("That card is not unbeaten on the table."),
    "cannot_beat": _("That card does not beat it."),
    "transfer_not_allowed": _("You cannot transfer now."),
    "take_declared": _("Take has been declared."),
    "take_not_allowed": _("Every card on the table is beaten."),
    "pass_not_allowed": _("You cannot pass now."),
    # Tables and games.
    "stale_version": _("The game has moved on; your view is being refreshed."),
    "not_a_player": _("You do not play in this game."),
    "game_not_found": _("There is no such game."),
    "no_game": _("No game is being played at this table."),
    "table_not_found": _("There is no such table."),
    "table_not_open": _("This table does not take players now."),
    "table_full": _("Every seat at this table is taken."),
    "already_seated": _("You already sit at this table."),
    "not_seated": _("You do not sit at this table."),
    "bad_invite_code": _("The invitation code is wrong."),
    "game_in_progress": _("You cannot leave during a game."),
    "invalid_stake": _("The stake must be a positive whole number of kopecks."),
    "invalid_seats": _("A table has 2 to 6 seats."),
    "invalid_time": _("The time limits are out of range."),
    "rematch_closed": _("A rematch is no longer possible."),
    "commission_locked": _("The commission cannot change while a game is being played."),
    "rematch_already_confirmed": _("You have already confirmed the rematch."),
    "insufficient_funds": _("Not enough money in the wallet."),
    "wallet_error": _("The money command was refused."),
    # The socket protocol.
    "invalid_json": _("The message is not valid JSON."),
    "not_an_object": _("The message must be a JSON object."),
    "unknown_type": _("Unknown message type."),
    "bad_message": _("The message has missing, extra or wrongly typed fields."),
    "frame_too_large": _("The message is too large."),
    "rate_limited": _("Too many messages; slow down."),
}


class GameError(Exception):
    """A refused command. ``code`` is machine-readable; ``message`` is for people."""

    def __init__(self, code: str, message: str | Promise | None = None) -> None:
        self.code = code
        self.message = message if message is not None else ERROR_MESSAGES[code]
        super().__init__(code)


# --- tables --------------------------------------------------------------------------------


def table_create(
    *,
    user,
    stake: int,
    seats: int,
    turn_seconds: int = 30,
    throw_seconds: int = 10,
    private: bool = False,
) -> Table:
    """Open a table; the creator takes seat 0 and his stake is held."""
    if not _is_int(stake) or not 0 < stake <= MAX_STAKE:
        raise GameError("invalid_stake")
    if not _is_int(seats) or not 2 <= seats <= 6:
        raise GameError("invalid_seats")
    if (
        not _is_int(turn_seconds)
        or not _is_int(throw_seconds)
        or not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS
        or not MIN_THROW_SECONDS <= throw_seconds <= MAX_THROW_SECONDS
    ):
        raise GameError("invalid_time")
    with transaction.atomic():
        table = Table.objects.create(
            stake=stake,
            seats=seats,
            turn_seconds=turn_seconds,
            throw_seconds=throw_seconds,
            commission_percent=Decimal(settings.GAMES_COMMISSION_PERCENT),
            private=bool(private),
            invite_code=secrets.token_urlsafe(9) if private else "",
            created_by=user,
        )
        _seat_take(table=table, user=user, position=0)
        _announce(table=table, version=0)
    return table


def table_join(*, table_id: int, user, invite_code: str | None = None) -> Seat:
    """Sit down at the first free seat and hold the stake; the last seat starts the game."""
    with transaction.atomic():
        table = _lock_table(table_id)
        if table.status != Table.Status.OPEN:
            raise GameError("table_not_open")
        if table.private and not secrets.compare_digest(
            str(invite_code or "").encode(), table.invite_code.encode()
        ):
            raise GameError("bad_invite_code")
        seats = list(table.seat_set.filter(left_at__isnull=True))
        if any(seat.user_id == user.pk for seat in seats):
            raise GameError("already_seated")
        if len(seats) >= table.seats:
            raise GameError("table_full")
        taken = {seat.position for seat in seats}
        position = min(set(range(table.seats)) - taken)
        seat = _seat_take(table=table, user=user, position=position)
        if len(seats) + 1 == table.seats:
            _game_start(table=table)  # announces the new game itself
        else:
            _announce(table=table, version=0)
    return seat


def table_leave(*, table_id: int, user) -> None:
    """Stand up before the game starts (or withdraw a rematch confirmation); stake released."""
    with transaction.atomic():
        table = _lock_table(table_id)
        seat = table.seat_set.filter(left_at__isnull=True, user_id=user.pk).first()
        if seat is None:
            raise GameError("not_seated")
        if table.status == Table.Status.PLAYING:
            raise GameError("game_in_progress")
        _seat_release(table=table, seat=seat)
        if (
            table.status == Table.Status.OPEN
            and not table.seat_set.filter(left_at__isnull=True).exists()
        ):
            table.status = Table.Status.CLOSED
            table.save(update_fields=["status"])
        _announce(table=table, version=_current_version(table))


def table_expire(*, table_id: int) -> bool:
    """Close an open table nobody joined for ``TABLE_OPEN_TTL`` seconds; every stake returns.

    Under the table lock, so a join racing it either sits down first (and the table is no
    longer stale) or finds the table closed. A second call finds it closed and does nothing.
    """
    with transaction.atomic():
        table = _lock_table(table_id)
        seats = list(_active_seats(table).select_related("user"))
        newest = max((seat.joined_at for seat in seats), default=None)
        if table.status != Table.Status.OPEN or (newest is not None and newest > _open_cutoff()):
            return False
        for seat in seats:
            _seat_release(table=table, seat=seat)
        table.status = Table.Status.CLOSED
        table.save(update_fields=["status"])
        _announce(table=table, version=_current_version(table))
    return True


def _open_cutoff():
    return timezone.now() - timedelta(seconds=settings.TABLE_OPEN_TTL)


def table_set_commission(*, table_id: int, commission_percent: Decimal) -> None:
    """Staff set the house commission of the table's next games; a running game keeps its own."""
    with transaction.atomic():
        table = _lock_table(table_id)
        if table.status == Table.Status.PLAYING:
            raise GameError("commission_locked")
        # Only this column: the row's other fields belong to the players' commands.
        table.commission_percent = commission_percent
        table.save(update_fields=["commission_percent"])


def _seat_take(*, table: Table, user, position: int) -> Seat:
    seat = Seat.objects.create(table=table, user=user, position=position)
    try:
        wallet_services.stake_hold(
            user=user,
            table_id=table.pk,
            amount=table.stake,
            idempotency_key=f"hold:table:{table.pk}:seat:{seat.pk}",
        )
    except WalletError as error:
        # The surrounding transaction rolls the seat back with the error.
        raise GameError(
            error.code if error.code in ERROR_MESSAGES else "wallet_error", error.message
        ) from error
    return seat


def _seat_release(*, table: Table, seat: Seat) -> None:
    seat.left_at = timezone.now()
    seat.save(update_fields=["left_at"])
    wallet_services.stake_release(
        user=seat.user,
        table_id=table.pk,
        amount=table.stake,
        idempotency_key=f"release:table:{table.pk}:seat:{seat.pk}",
    )


def _lock_table(table_id: Any) -> Table:
    if not _is_int(table_id):
        raise GameError("table_not_found")
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise GameError("table_not_found")
    return table


# --- games ---------------------------------------------------------------------------------


def _game_start(*, table: Table) -> Game:
    """Deal a new game for the seated players (table row locked by the caller)."""
    seats = list(table.seat_set.filter(left_at__isnull=True).order_by("position"))
    seed = _new_seed()
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
    _after_change(table=table, game=game, engine=engine)
    return game


def game_apply_action(*, game_id: int, user, action: dict, expected_version: int) -> Game:
    """Play the user's move: checked, stored with its event and the next deadline, at once."""
    if not _is_int(expected_version):
        raise GameError("stale_version")
    with transaction.atomic():
        table, game = _lock_game(game_id)
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
        _active_seats(table).filter(position=seat).exclude(
            consecutive_timeouts=0, away=False
        ).update(consecutive_timeouts=0, away=False)
        _record(game=game, engine=engine, seat=seat, action=action, bout=bout, automatic=False)
        _after_change(table=table, game=game, engine=engine)
    return game


def game_timeout(*, game_id: int, version: int) -> bool:
    """Act for every idle waited-on seat if `version` is current and its deadline has passed.

    Idempotent: a second call for the same version finds the version moved on and does nothing.
    """
    with transaction.atomic():
        try:
            table, game = _lock_game(game_id)
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
            _record(game=game, engine=engine, seat=seat, action=action, bout=bout, automatic=True)
            timed_out.append(seat)
        seats = _active_seats(table).filter(position__in=timed_out)
        seats.update(consecutive_timeouts=F("consecutive_timeouts") + 1)
        seats.filter(consecutive_timeouts__gte=2).update(away=True)
        _after_change(table=table, game=game, engine=engine)
    return True


def games_sweep() -> int:
    """Catch up on everything whose timer may have been lost, and close abandoned open tables;
    returns the actions taken."""
    now = timezone.now()
    done = 0
    overdue = Game.objects.filter(
        status=Game.Status.PLAYING, deadline__lte=now - SWEEP_GRACE
    ).values_list("pk", "version")
    for game_id, version in overdue:
        done += game_timeout(game_id=game_id, version=version)
    _presence_lost()
    gone = Seat.objects.filter(
        left_at__isnull=True,
        away=False,
        disconnected_at__isnull=False,
        table__status=Table.Status.PLAYING,
        disconnected_at__lte=now - timedelta(seconds=MIN_TURN_SECONDS),
    ).values_list("pk", flat=True)
    for seat_id in gone:
        done += seat_mark_away(seat_id=seat_id)
    expired = Table.objects.filter(
        status=Table.Status.CLOSED,
        seat_set__left_at__isnull=True,
        games__finished_at__lte=now - timedelta(seconds=REMATCH_SECONDS),
    ).values_list("pk", flat=True)
    for table_id in set(expired):
        done += rematch_expire(table_id=table_id)
    abandoned = (
        Table.objects.filter(status=Table.Status.OPEN)
        .annotate(newest=Max("seat_set__joined_at", filter=Q(seat_set__left_at__isnull=True)))
        .filter(Q(newest__lte=_open_cutoff()) | Q(newest__isnull=True))
        .values_list("pk", flat=True)
    )
    for table_id in abandoned:
        done += table_expire(table_id=table_id)
    return done


def _lock_game(game_id: Any) -> tuple[Table, Game]:
    if not _is_int(game_id):
        raise GameError("game_not_found")
    table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
    if table_id is None:
        raise GameError("game_not_found")
    table = Table.objects.select_for_update().get(pk=table_id)
    game = Game.objects.select_for_update().get(pk=game_id)
    return table, game


def _active_seats(table: Table):
    return Seat.objects.filter(table=table, left_at__isnull=True)


def _record(
    *, game: Game, engine: EngineGame, seat: int, action: dict, bout: int, automatic: bool
) -> None:
    game.version += 1
    GameEvent.objects.create(
        game=game, version=game.version, bout=bout, seat=seat, action=action, automatic=automatic
    )


def _after_change(*, table: Table, game: Game, engine: EngineGame) -> None:
    """Play for away players, then finish the game or set its next deadline; save; announce.

    When everyone still in is away and the server's moves for them would repeat forever, the
    game ends at once in a stalemate: they share the places still to be given.
    """
    away = set(_active_seats(table).filter(away=True).values_list("position", flat=True))
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
        _record(game=game, engine=engine, seat=seat, action=action, bout=bout, automatic=True)
    game.state = engine.to_dict()
    if engine.finished or game.stalemate:
        _game_finish(table=table, game=game, engine=engine)
    else:
        seconds = table.turn_seconds if engine.deadline_kind == "turn" else table.throw_seconds
        game.deadline = timezone.now() + timedelta(seconds=seconds)
        game.save()
        _schedule_deadline(game_id=game.pk, version=game.version, eta=game.deadline)
    _announce(table=table, version=game.version)


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
    _active_seats(table).update(left_at=now)
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status"])


# --- rematch -------------------------------------------------------------------------------


def rematch_confirm(*, game_id: int, user) -> None:
    """Confirm a rematch: the stake is held now; when everyone has confirmed, a game starts."""
    with transaction.atomic():
        table, game = _lock_game(game_id)
        if user.pk not in game.players:
            raise GameError("not_a_player")
        latest = table.games.order_by("-number").values_list("pk", flat=True).first()
        if (
            game.status != Game.Status.FINISHED
            or table.status != Table.Status.CLOSED
            or latest != game.pk
            or game.finished_at < timezone.now() - timedelta(seconds=REMATCH_SECONDS)
        ):
            raise GameError("rematch_closed")
        if _active_seats(table).filter(user_id=user.pk).exists():
            raise GameError("rematch_already_confirmed")
        _seat_take(table=table, user=user, position=game.players.index(user.pk))
        if _active_seats(table).count() == len(game.players):
            _game_start(table=table)  # announces the new game itself
        else:
            _announce(table=table, version=game.version)


def rematch_expire(*, table_id: int) -> bool:
    """Return the stakes held for a rematch that not everyone confirmed in time."""
    with transaction.atomic():
        table = _lock_table(table_id)
        finished_at = table.games.aggregate(last=Max("finished_at"))["last"]
        if (
            table.status != Table.Status.CLOSED
            or finished_at is None
            or finished_at > timezone.now() - timedelta(seconds=REMATCH_SECONDS)
        ):
            return False
        seats = list(_active_seats(table).select_related("user"))
        for seat in seats:
            _seat_release(table=table, seat=seat)
        if seats:
            _announce(table=table, version=_current_version(table))
        return bool(seats)


# --- presence and away ----------------------------------------------------------------------


def presence_connect(*, table_id: int, user, connection: str) -> None:
    """Record one more open socket of the user at the table; a seated player is back."""
    presence.add(table_id, user.pk, connection)
    _presence_back(table_id=table_id, user=user)


def presence_heartbeat(*, table_id: int, user, connection: str) -> None:
    """Keep an open socket counted; one already given up for lost counts again."""
    if presence.add(table_id, user.pk, connection):
        _presence_back(table_id=table_id, user=user)


def _presence_back(*, table_id: int, user) -> None:
    with transaction.atomic():
        Seat.objects.filter(
            table_id=table_id, user_id=user.pk, left_at__isnull=True, disconnected_at__isnull=False
        ).update(disconnected_at=None)
        table = Table.objects.filter(pk=table_id).first()
        if table is not None:
            _announce(table=table, version=_current_version(table), lobby=False)


def presence_disconnect(*, table_id: int, user, connection: str) -> None:
    """Forget one socket; when a playing seat's last socket closes, start the away clock."""
    if presence.remove(table_id, user.pk, connection) > 0:
        return
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            return
        seat = _active_seats(table).filter(user_id=user.pk).first()
        if seat is not None and table.status == Table.Status.PLAYING:
            seat.disconnected_at = timezone.now()
            seat.save(update_fields=["disconnected_at"])
            seat_id = seat.pk

            def check_later() -> None:
                from games import tasks

                tasks.seat_away_check.apply_async(
                    args=(seat_id,), countdown=table.turn_seconds + 0.5
                )

            transaction.on_commit(check_later)
        _announce(table=table, version=_current_version(table), lobby=False)


def _presence_lost() -> None:
    """Start the away clock of playing seats whose sockets all died with their process.

    Their sockets never said goodbye; they stopped counting once their heartbeats went stale.
    """
    seated = Seat.objects.filter(
        left_at__isnull=True,
        away=False,
        disconnected_at__isnull=True,
        table__status=Table.Status.PLAYING,
    ).values_list("pk", "table_id", "user_id")
    by_table: dict[int, list[tuple[int, int]]] = {}
    for seat_id, table_id, user_id in seated:
        by_table.setdefault(table_id, []).append((seat_id, user_id))
    for table_id, seats in by_table.items():
        live = presence.connected(table_id, [user_id for _seat, user_id in seats])
        lost = [seat_id for seat_id, user_id in seats if user_id not in live]
        if not lost:
            continue
        with transaction.atomic():
            table = Table.objects.get(pk=table_id)
            Seat.objects.filter(pk__in=lost, disconnected_at__isnull=True).update(
                disconnected_at=timezone.now()
            )
            _announce(table=table, version=_current_version(table), lobby=False)


def seat_mark_away(*, seat_id: int) -> bool:
    """Mark a player away who has been disconnected longer than one turn time (RULES §5)."""
    with transaction.atomic():
        table_id = Seat.objects.filter(pk=seat_id).values_list("table_id", flat=True).first()
        if table_id is None:
            return False
        table = Table.objects.select_for_update().get(pk=table_id)
        game = table.games.select_for_update().filter(status=Game.Status.PLAYING).first()
        seat = Seat.objects.select_for_update().get(pk=seat_id)
        if (
            game is None
            or seat.left_at is not None
            or seat.away
            or seat.disconnected_at is None
            or seat.disconnected_at > timezone.now() - timedelta(seconds=table.turn_seconds)
            or presence.count(table_id, seat.user_id) > 0
        ):
            return False
        seat.away = True
        seat.save(update_fields=["away"])
        engine = EngineGame.from_dict(game.state)
        if seat.position in engine.waiting_for:
            _after_change(table=table, game=game, engine=engine)
        else:
            _announce(table=table, version=game.version, lobby=False)
    return True


# --- side effects on commit ------------------------------------------------------------------


def _schedule_deadline(*, game_id: int, version: int, eta) -> None:
    def schedule() -> None:
        from games import tasks  # tasks import this module

        tasks.game_deadline.apply_async(args=(game_id, version), eta=eta)

    transaction.on_commit(schedule)


def _announce(*, table: Table, version: int, lobby: bool = True) -> None:
    """On commit: tell the table's sockets to refresh, and the lobby about the table."""
    table_id = table.pk
    lobby = lobby and not table.private  # private tables never reach the lobby

    def send() -> None:
        layer = get_channel_layer()
        async_to_sync(layer.group_send)(
            selectors.table_group(table_id), {"type": "table.changed", "version": version}
        )
        if lobby:
            entry = selectors.table_lobby_entry(table_id=table_id)
            message = (
                {"type": "lobby.table", "table": entry}
                if entry is not None
                else {"type": "lobby.removed", "id": table_id}
            )
            async_to_sync(layer.group_send)(selectors.LOBBY_GROUP, message)

    transaction.on_commit(send)


def _new_seed() -> str:
    """256 bits from the OS's secure generator: nobody can predict or steer the deal."""
    return secrets.token_hex(32)


def _current_version(table: Table) -> int:
    version = table.games.order_by("-number").values_list("version", flat=True).first()
    return version or 0


def _is_int(value: object) -> bool:
    return type(value) is int
