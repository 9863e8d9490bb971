"""The rematch: the same players confirm before the finished game's ``rematch_until``, or their
stakes return."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from durak_site.web.client_source import Client
from games import effects, persistence
from games.errors import GameError
from games.models import Game, Table
from games.services import notices, play
from games.services._locks import active_seats, lock_game, lock_table
from games.services.tables import seat_release, seat_take


def rematch_confirm(*, game_id: int, user, client: Client | None = None) -> None:
    """Confirm a rematch: the stake is held now; when everyone has confirmed, a game starts."""
    with transaction.atomic():
        table, game = lock_game(game_id)
        if user.pk not in game.players:
            raise GameError("not_a_player")
        # The players seated again are those who confirmed (a game's end stands everyone up).
        latest, confirmed = persistence.latest_game_and_seated(table.pk)
        if (
            game.status != Game.Status.FINISHED
            or table.status != Table.Status.CLOSED
            or latest != game.pk
            or not game.rematch_open(timezone.now())
        ):
            raise GameError("rematch_closed")
        if user.pk in confirmed:
            raise GameError("rematch_already_confirmed")
        seat_take(table=table, user=user, position=game.players.index(user.pk), client=client)
        if len(confirmed) + 1 == len(game.players):
            # Announces the new game itself; the table left the lobby with the first game.
            play.game_start(table=table, listed=False)
        else:
            # A finished game's table left the lobby when that game started.
            effects.announce(table=table, lobby=False)
            effects.notify_players(
                table=table,
                user_ids=[uid for uid in game.players if uid not in {*confirmed, user.pk}],
                kind=notices.REMATCH,
                until=game.rematch_until,
                nickname=user.username,
            )


def rematch_expire(*, table_id: int) -> bool:
    """Return the stakes held for a rematch that not everyone confirmed in time."""
    with transaction.atomic():
        table = lock_table(table_id)
        until = table.games.aggregate(last=Max("rematch_until"))["last"]
        if table.status != Table.Status.CLOSED or until is None or until > timezone.now():
            return False
        seats = list(active_seats(table).select_related("user"))
        for seat in seats:
            seat_release(table=table, seat=seat)
        if seats:
            effects.announce(table=table, lobby=False)
        return bool(seats)
