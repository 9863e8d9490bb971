"""The cluster test's work on the site's own database, in a process of the site's settings:

    python -m tests.cluster.site seed TABLES    players, tables and their cookies, as JSON
    python -m tests.cluster.site check         the players' money as JSON, after
                                               ``ledger_check`` and ``verify_game`` of each game

Seeding goes through the services like any request; each table gets four funded players, of
whom the fourth sits down (which deals) once the test says so on stdin, after every socket is
open: a game dealt before would run on its deadlines meanwhile.
"""

from __future__ import annotations

import json
import sys

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Sum  # noqa: E402

from games import services  # noqa: E402
from games.models import Game, Table  # noqa: E402
from tests.players import create_player, session_cookie  # noqa: E402
from wallet.selectors import user_balance  # noqa: E402

SEATS = 4
STAKE = 100
OPENING_BALANCE = 10_000


def seed(tables: int) -> None:
    opened = []
    last_players = []
    for _number in range(tables):
        users = [create_player(balance=OPENING_BALANCE) for _seat in range(SEATS)]
        table = services.table_create(user=users[0], stake=STAKE, seats=SEATS)
        for user in users[1:-1]:
            services.table_join(table_id=table.pk, user=user)
        opened.append({"table": table.pk, "cookies": [session_cookie(user) for user in users]})
        last_players.append((table.pk, users[-1]))
    connection.close()
    print(json.dumps(opened), flush=True)
    sys.stdin.readline()
    for table_id, user in last_players:
        services.table_join(table_id=table_id, user=user)
    print(json.dumps([Game.objects.get(table_id=table_id).pk for table_id, _ in last_players]))


def check() -> None:
    """The books and every game replayed (a failure is a CommandError), then the players'
    money and what the house took."""
    call_command("ledger_check")
    tables = Table.objects.filter(stake=STAKE, seat_count=SEATS)
    games = Game.objects.filter(table__in=tables)
    for game_id in games.values_list("pk", flat=True):
        call_command("verify_game", game_id)
    players = {seat.user for table in tables for seat in table.seat_set.all()}
    print(
        json.dumps(
            {
                "players": len(players),
                "balances": sum(user_balance(user=user) for user in players),
                "commission": games.aggregate(total=Sum("commission"))["total"] or 0,
                "unfinished": games.exclude(status=Game.Status.FINISHED).count(),
                "games": sorted(games.values_list("pk", flat=True)),
            }
        )
    )


if __name__ == "__main__":
    if sys.argv[1] == "seed":
        seed(int(sys.argv[2]))
    else:
        check()
