"""Reads of a table for its socket and its pages: the snapshot its states are made of, the state
each viewer may see, a finished game's result, who may see the table, the practice hint.

``table_state_for`` is the one place that decides what a user may see of a table: his own seat's
engine view (or a spectator's), never another seat's cards, never the talon order, never the seed
before the game is over.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games import persistence, presence
from games.engine import Game as EngineGame
from games.engine.autoplay import final_places
from games.engine.bots import AMATEUR, decide
from games.models import (
    PRACTICE_PLAYER_SEAT,
    SERVER_MOVE_KINDS,
    BankDistribution,
    Game,
    GameEvent,
    Seat,
    Table,
)
from games.rating import MODEL, display_rating

# The table state carries at most this many of the latest moves, to keep its frame small.
STATE_EVENTS = 200
# The kinds of the server's moves a player's own state counts: take, pass, lead.
SERVER_MOVES = tuple(SERVER_MOVE_KINDS.values())


# --- the table state -----------------------------------------------------------------------


def table_visible_to(*, table: Table, user, invite_code: str = "") -> bool:
    """Public tables are open to every player; a private one to its players and invitees."""
    if not table.private:
        return True
    if invite_code and secrets.compare_digest(invite_code.encode(), table.invite_code.encode()):
        return True
    return bool(user.is_authenticated) and Seat.objects.filter(table=table, user=user).exists()


def games_visible_to(*, user, table_field: str = "table") -> Q:
    """A filter for the games whose results `user` may see in lists: public tables' games, and
    private ones only to the players who sat at the table, and to staff. `table_field` is the
    path from the filtered model to the game's table."""
    if user.is_authenticated and user.is_staff:
        return Q()
    public = Q(**{f"{table_field}__private": False})
    if not user.is_authenticated:
        return public
    return public | Q(Exists(Seat.objects.filter(table=OuterRef(table_field), user=user)))


def table_current_game(*, table: Table) -> Game | None:
    """The game being played at the table, or else its latest one."""
    return table.games.order_by("-number").first()


def table_shows_player(*, table: Table, user_id: int, game: Game | None = None) -> bool:
    """Whether the table's states show the user as a player: he sits there or played its latest
    game (`game`, when the caller has read it)."""
    players = (
        game.players
        if game is not None
        else table.games.order_by("-number").values_list("players", flat=True).first() or []
    )
    if user_id in players:
        return True
    return Seat.objects.filter(table=table, user_id=user_id, left_at__isnull=True).exists()


@dataclass
class TableSnapshot:
    """Everything the table's states are made of, read once for all its viewers."""

    table: Table
    game: Game | None
    engine: EngineGame | None
    # The active seats by position, each with its user.
    active: dict[int, Seat]
    # user id -> nickname, for the game's players and the seated users.
    nicknames: dict[int, str]
    result: dict[str, Any] | None = None

    @property
    def seated(self) -> list[int]:
        """Users who get a state of their own: the game's players and the seated users."""
        players = list(self.game.players) if self.game is not None else []
        return players + [
            seat.user_id for seat in self.active.values() if seat.user_id not in players
        ]


def table_snapshot(*, table: Table, game: Game | None = None) -> TableSnapshot:
    """Read the table's current game, seats and players (`game` when the caller has it)."""
    return _snapshot(table, game if game is not None else table_current_game(table=table))


def _snapshot(table: Table, game: Game | None) -> TableSnapshot:
    active = {seat.position: seat for seat in persistence.table_seats(table.pk)}
    nicknames = {seat.user_id: seat.user.username for seat in active.values()}
    if game is None:
        return TableSnapshot(table, None, None, active, nicknames)
    result = game_result(game=game) if game.status == Game.Status.FINISHED else None
    if result is not None:  # it names every player of the game
        nicknames.update(
            (game.players[payout["seat"]], payout["nickname"]) for payout in result["payouts"]
        )
    missing = [user_id for user_id in game.players if user_id not in nicknames]
    if missing:
        nicknames.update(
            get_user_model().objects.filter(pk__in=missing).values_list("pk", "username")
        )
    return TableSnapshot(table, game, EngineGame.from_dict(game.state), active, nicknames, result)


def table_snapshot_read(table_id: int) -> TableSnapshot | None:
    """`table_snapshot` of the table with this id, None if there is none: the table and its
    current game in one statement written once, as every change announced to a table reads
    them."""
    found = persistence.table_and_current_game(table_id)
    return None if found is None else _snapshot(*found)


def table_state_for(*, table: Table, user) -> dict[str, Any]:
    """Exactly the payload of the table socket's "state" message for `user`, with the log."""
    snapshot = table_snapshot(table=table)
    events = game_public_events(game=snapshot.game) if snapshot.game is not None else []
    connected = table_audience(snapshot).connected
    return table_state(snapshot, getattr(user, "pk", None), connected, events)


def table_state_read(*, table_id: int, user) -> dict[str, Any]:
    """`table_state_for` the table with this id."""
    return table_state_for(table=Table.objects.get(pk=table_id), user=user)


def table_audience(snapshot: TableSnapshot) -> presence.Audience:
    """Who has open sockets at the table, and on which web processes."""
    return presence.audience(snapshot.table.pk, snapshot.seated)


def table_state(
    snapshot: TableSnapshot, user_id: int | None, connected: set[int], events: list[dict]
) -> dict[str, Any]:
    """The state `user_id` (None: a spectator) may see; `events` are the log it carries.

    The one place that decides what a viewer sees: his own seat's engine view, never another's.
    """
    table, game, active = snapshot.table, snapshot.game, snapshot.active
    state: dict[str, Any] = {
        "table": {
            "id": table.pk,
            "stake": table.stake,
            "seats": table.seat_count,
            "turn_seconds": table.turn_seconds,
            "throw_seconds": table.throw_seconds,
            "speed": table.speed,
            "options": table.options,
            "commission_percent": str(table.commission_percent),
            "private": table.private,
            "practice": table.practice,
            "bot_level": table.bot_level,
            "status": table.status,
        },
        "server_time": timezone.now().isoformat(),
        "version": 0,
        "deadline": None,
        "deadline_kind": None,
        "game": None,
        "view": None,
        "events": events,
        "result": None,
        "rematch": None,
        "server_moves": None,
    }
    if (
        table.private
        and not table.practice
        and any(seat.user_id == user_id for seat in active.values())
    ):
        state["table"]["invite_code"] = table.invite_code
    if game is None:
        state["you"] = next((p for p, seat in active.items() if seat.user_id == user_id), None)
        by_seat = {position: seat.user_id for position, seat in active.items()}
        state["players"] = _players(snapshot, by_seat, connected)
        return state

    engine = snapshot.engine
    you = game.players.index(user_id) if user_id in game.players else None
    state["you"] = you
    state["players"] = _players(snapshot, dict(enumerate(game.players)), connected)
    finished = game.status == Game.Status.FINISHED
    seat = active.get(you) if you is not None else None
    if seat is not None and seat.user_id == user_id:
        # What the server played for him since his own last move: his alone to see.
        state["server_moves"] = {kind: seat.server_moves.get(kind, 0) for kind in SERVER_MOVES}
    state.update(
        version=game.version,
        deadline=game.deadline.isoformat() if game.deadline else None,
        deadline_kind=engine.deadline_kind if game.status == Game.Status.PLAYING else None,
        game={
            "id": game.pk,
            "number": game.number,
            "status": game.status,
            "seed_hash": game.seed_hash,
            "seed": game.seed if finished else None,
            "started_at": game.started_at.isoformat(),
            "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        },
        # A practice game its player left shows no board: it is over without a result.
        view=None if game.status == Game.Status.ABANDONED else engine.view(you),
    )
    if finished:
        state["result"] = snapshot.result
        if table.status == Table.Status.CLOSED and game.rematch_open(timezone.now()):
            state["rematch"] = {
                "confirmed": sorted(
                    p for p, seat in active.items() if seat.user_id in game.players
                ),
                "until": game.rematch_until.isoformat(),
            }
    return state


def game_public_events(*, game: Game) -> list[dict[str, Any]]:
    """The game's latest ``STATE_EVENTS`` moves, oldest first, as every seat saw them.

    A move's cards are those it put on the table, which every seat saw, or none (take, pass):
    a hand, the talon and the cards drawn from it are never part of an event.
    """
    # One move more than is shown, so that the first one shown knows whether it led its bout.
    # Plain rows, not model instances: every socket that opens reads up to STATE_EVENTS of them.
    fields = ("version", "bout", "seat", "action", "automatic")
    latest = list(
        GameEvent.objects.filter(game=game)
        .order_by("-version")
        .values_list(*fields)[: STATE_EVENTS + 1]
    )
    latest.reverse()
    before = latest.pop(0)[1] if len(latest) > STATE_EVENTS else None
    events = [dict(zip(fields, event, strict=True)) for event in latest]
    return mark_leads(events, previous_bout=before)


def mark_leads(events: list[dict[str, Any]], *, previous_bout: int | None = None) -> list[dict]:
    """Set each move's ``lead``: whether it opened its bout, being its bout's first move.

    `events` are consecutive moves, oldest first; `previous_bout` is the bout of the move just
    before the first of them (None when they start with the game).
    """
    for event in events:
        event["lead"] = event["bout"] != previous_bout
        previous_bout = event["bout"]
    return events


def _players(snapshot: TableSnapshot, users_by_seat: dict[int, int], connected: set[int]):
    active, table, game = snapshot.active, snapshot.table, snapshot.game
    # Ratings as they stood when the game started, or after it once it is rated (none before
    # a game or in practice).
    ratings = (game.ratings if game is not None else None) or {}
    if snapshot.result is not None:
        ratings = ratings | {
            str(payout["seat"]): payout["rating"]
            for payout in snapshot.result["payouts"]
            if payout["rating"] is not None
        }
    return [
        {
            "seat": seat,
            "nickname": snapshot.nicknames[user_id],
            "rating": ratings.get(str(seat)),
            # Bots have no sockets and are always there.
            "connected": user_id in connected or (table.practice and seat != PRACTICE_PLAYER_SEAT),
            "away": bool(
                active.get(seat) and active[seat].user_id == user_id and active[seat].away
            ),
        }
        for seat, user_id in sorted(users_by_seat.items())
    ]


def game_result(*, game: Game) -> dict[str, Any]:
    """Places, bank, commission, each seat's share and net, and each rated player's shown
    rating after the game and its change: one statement written once, as every state of a
    finished game reads it."""
    shares, nicknames, ratings = [], {}, {}
    for share, nickname, mu, sigma, mu_before, sigma_before in persistence.game_result_rows(
        game.pk
    ):
        shares.append(share)
        nicknames[share.user_id] = nickname
        if mu is not None:
            # Games are rated in the order of their rating rows: the rating before this game is
            # the one the player's previous rated game left, the model's start before his first.
            before = (MODEL.mu, MODEL.sigma) if mu_before is None else (mu_before, sigma_before)
            ratings[share.user_id] = (display_rating(*before), display_rating(mu, sigma))
    return result_of(game, nicknames, shares, ratings)


def result_of(
    game: Game,
    nicknames: dict[int, str],
    shares: Iterable[BankDistribution],
    ratings: dict[int, tuple[int, int]],
) -> dict[str, Any]:
    """A finished game's result from its bank shares, in place order, its players' nicknames
    and their shown ratings before and after it by user id (empty when it was not rated): what
    its move's transaction wrote needs no reading back."""
    engine = EngineGame.from_dict(game.state)
    return {
        "places": final_places(engine, stalemate=game.stalemate),
        "durak": None if game.stalemate else engine.durak,
        "stalemate": game.stalemate,
        "stake": game.stake,
        "bank": game.bank,
        "commission": game.commission,
        "payouts": [
            _payout(game, share, nicknames, ratings.get(share.user_id)) for share in shares
        ],
    }


def _payout(
    game: Game,
    share: BankDistribution,
    nicknames: dict[int, str],
    rating: tuple[int, int] | None,
) -> dict[str, Any]:
    return {
        "seat": share.seat,
        "nickname": nicknames[share.user_id],
        "place": share.place,
        "percent": f"{share.percent.normalize():f}",
        "amount": share.amount,
        "net": share.amount - game.stake,
        "rating": None if rating is None else rating[1],
        "rating_change": None if rating is None else rating[1] - rating[0],
    }


def practice_hint(*, table: Table, user) -> dict[str, Any] | None:
    """The move the Любитель would make in the user's seat at his practice table now, from that
    seat's view and the public move log; None when he may not act."""
    game = table_current_game(table=table)
    if not table.practice or game is None or game.status != Game.Status.PLAYING:
        return None
    if user.pk not in game.players:
        return None
    seat = game.players.index(user.pk)
    log = list(game.events.order_by("version").values("bout", "seat", "action"))
    return decide(EngineGame.from_dict(game.state).view(seat), log, AMATEUR)


def player_names(user_ids: list[int]) -> list[str]:
    """The nicknames of the users, in the same order (a game's players by seat)."""
    names = dict(get_user_model().objects.filter(pk__in=user_ids).values_list("pk", "username"))
    return [names[user_id] for user_id in user_ids]
