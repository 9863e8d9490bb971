"""Fair-play signals for staff: who plays together far more often than chance, who gains at
whose expense, who sits at one table from the same address or browser, and who leaves the
server to play for him far more often than the others.

Only finished games at tables with stakes count, by the local dates they ended on. Every signal
is aggregated in SQL; the report costs at most eight queries whatever the number of games.

Pairs. Under random seating, a seat at a game is any of the period's seats alike, so players
``i`` and ``j`` who played ``n_i`` and ``n_j`` games are expected to share

    E_ij = n_i * n_j * sum(k * (k - 1)) / sum(k) ** 2

of them, where ``k`` runs over the players of every game of the period (``sum(k)`` is the
number of seats, ``sum(k * (k - 1))`` the number of ordered pairs of players that met). A pair
is flagged when it shared at least ``PAIR_MIN_GAMES`` games, at least ``PAIR_FACTOR`` times
the expected count, and when so many shared games would happen by chance less than once in
``1 / PAIR_MAX_CHANCE`` periods (the Poisson tail of ``E_ij``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from games.models import Game, StakeBlock
from games.selectors.reports import period_bounds
from wallet.models import Account, Entry, LedgerTransaction

PAIR_MIN_GAMES = 5
PAIR_FACTOR = 3.0
PAIR_MAX_CHANCE = 0.001
# A player is flagged when the server made at least AWAY_FACTOR times the average share of his
# moves (each made when his deadline passed), and at least AWAY_MIN_SHARE of them, over at
# least AWAY_MIN_GAMES games.
AWAY_FACTOR = 3.0
AWAY_MIN_SHARE = 0.10
AWAY_MIN_GAMES = 3

# The finished games at tables with stakes of the period, one row per player.
PLAYED = """
    played AS (
        SELECT d.game_id, d.user_id
        FROM games_bankdistribution d
        JOIN games_game g ON g.id = d.game_id
        JOIN games_table t ON t.id = g.table_id
        WHERE NOT t.practice AND g.finished_at >= %(start)s AND g.finished_at < %(end)s
    )
"""

PAIRS_SQL = f"""
    WITH {PLAYED},
    counts AS (SELECT user_id, count(*) AS games FROM played GROUP BY user_id),
    sizes AS (SELECT count(*) AS k FROM played GROUP BY game_id),
    population AS (
        SELECT sum(k)::float AS seats, sum(k * (k - 1))::float AS meetings FROM sizes
    ),
    pairs AS (
        SELECT a.user_id AS first, b.user_id AS second, count(*) AS shared,
               array_agg(a.game_id ORDER BY a.game_id DESC) AS games
        FROM played a JOIN played b ON b.game_id = a.game_id AND b.user_id > a.user_id
        GROUP BY a.user_id, b.user_id
        HAVING count(*) >= %(min_games)s
    )
    SELECT pairs.first, pairs.second, pairs.shared, pairs.games, cf.games, cs.games,
           cf.games * cs.games * population.meetings / (population.seats ^ 2) AS expected
    FROM pairs
    JOIN counts cf ON cf.user_id = pairs.first
    JOIN counts cs ON cs.user_id = pairs.second
    CROSS JOIN population
    WHERE pairs.shared >= %(factor)s * cf.games * cs.games * population.meetings
                          / (population.seats ^ 2)
    ORDER BY pairs.shared DESC, pairs.first, pairs.second
"""

POPULATION_SQL = f"""
    WITH {PLAYED}
    SELECT count(DISTINCT game_id), count(DISTINCT user_id) FROM played
"""

# Two sittings of different players at one table that overlapped in time, from one address or
# one browser; with the games at that table both played in.
SHARED_CLIENTS_SQL = """
    WITH sittings AS (
        SELECT a.user_id AS first, b.user_id AS second, a.table_id,
               a.client_address IS NOT NULL AND a.client_address = b.client_address
                   AS same_address,
               a.browser_id <> '' AND a.browser_id = b.browser_id AS same_browser,
               a.user_agent_hash <> '' AND a.user_agent_hash = b.user_agent_hash AS same_agent,
               host(a.client_address) AS address
        FROM games_seat a
        JOIN games_seat b ON b.table_id = a.table_id AND b.user_id > a.user_id
        JOIN games_table t ON t.id = a.table_id
        WHERE NOT t.practice
          AND a.joined_at >= %(start)s AND a.joined_at < %(end)s
          AND a.joined_at < coalesce(b.left_at, 'infinity')
          AND b.joined_at < coalesce(a.left_at, 'infinity')
          AND ((a.client_address IS NOT NULL AND a.client_address = b.client_address)
               OR (a.browser_id <> '' AND a.browser_id = b.browser_id))
    )
    SELECT s.first, s.second, bool_or(s.same_address), bool_or(s.same_browser),
           bool_or(s.same_agent),
           array_agg(DISTINCT s.address) FILTER (WHERE s.same_address),
           array_agg(DISTINCT s.table_id ORDER BY s.table_id DESC),
           coalesce(array_agg(DISTINCT g.id ORDER BY g.id DESC)
                    FILTER (WHERE g.id IS NOT NULL), '{}')
    FROM sittings s
    LEFT JOIN games_game g
        ON g.table_id = s.table_id AND g.players @> jsonb_build_array(s.first, s.second)
    GROUP BY s.first, s.second
    ORDER BY s.first, s.second
"""

# Per player: his moves in the period's games, and those the server made for him.
AWAY_SQL = f"""
    WITH {PLAYED},
    moves AS (
        SELECT (g.players ->> e.seat::int)::bigint AS user_id, e.game_id, e.automatic
        FROM games_gameevent e
        JOIN games_game g ON g.id = e.game_id
        WHERE e.game_id IN (SELECT game_id FROM played)
    )
    SELECT user_id, count(*), count(*) FILTER (WHERE automatic), count(DISTINCT game_id),
           coalesce(array_agg(DISTINCT game_id ORDER BY game_id DESC)
                    FILTER (WHERE automatic), '{{}}')
    FROM moves
    GROUP BY user_id
"""


@dataclass
class PairFlag:
    """Two players who shared many more games than chance, and the money between them."""

    first: object
    second: object
    shared: int
    expected: float
    first_games: int
    second_games: int
    chance: float
    game_ids: list[int]
    # Each one's result (bank share minus stake) over the shared games, from the ledger.
    first_net: int = 0
    second_net: int = 0

    @property
    def ratio(self) -> float:
        return self.shared / self.expected if self.expected else math.inf

    @property
    def flow(self) -> int:
        """Money that went from the second to the first in their shared games (negative: the
        other way): half the difference of their results, exact for two players and no
        commission."""
        return (self.first_net - self.second_net) // 2

    @property
    def amount(self) -> int:
        return abs(self.flow)

    @property
    def gainer(self):
        return self.first if self.flow >= 0 else self.second

    @property
    def loser(self):
        return self.second if self.flow >= 0 else self.first


@dataclass
class SharedClientFlag:
    """Two players seated at one table at the same time from one address or one browser."""

    first: object
    second: object
    same_address: bool
    same_browser: bool
    same_agent: bool
    addresses: list[str]
    table_ids: list[int]
    game_ids: list[int]


@dataclass
class AwayFlag:
    """A player for whom the server moved far more often than for the others."""

    user: object
    moves: int
    automatic: int
    games: int
    game_ids: list[int]  # the games in which the server moved for him
    average: float

    @property
    def share(self) -> float:
        return self.automatic / self.moves

    @property
    def times_average(self) -> float:
        return self.share / self.average if self.average else math.inf


@dataclass
class FairPlayReport:
    since: date
    until: date
    games: int = 0
    players: int = 0
    pairs: list[PairFlag] = field(default_factory=list)
    shared_clients: list[SharedClientFlag] = field(default_factory=list)
    away: list[AwayFlag] = field(default_factory=list)
    away_average: float = 0.0

    # The blocks from tables with stakes in force for the flagged players, by user id.
    blocks: dict[int, StakeBlock] = field(default_factory=dict)

    @property
    def flagged_users(self) -> list:
        users = {flag.user.pk: flag.user for flag in self.away}
        for flag in [*self.pairs, *self.shared_clients]:
            users.update({flag.first.pk: flag.first, flag.second.pk: flag.second})
        return sorted(users.values(), key=lambda user: user.username.lower())


def poisson_tail(observed: int, expected: float) -> float:
    """The chance of at least ``observed`` events when ``expected`` are expected."""
    if expected <= 0:
        return 0.0 if observed > 0 else 1.0
    term = math.exp(-expected)
    below = 0.0
    for count in range(observed):
        below += term
        term *= expected / (count + 1)
    return max(0.0, 1.0 - below)


def fair_play_report(*, since: date, until: date) -> FairPlayReport:
    """Every fair-play signal for the games that ended on local dates ``since``..``until``."""
    start, end = period_bounds(since, until)
    report = FairPlayReport(since=since, until=until)
    with connection.cursor() as cursor:
        cursor.execute(POPULATION_SQL, {"start": start, "end": end})
        report.games, report.players = cursor.fetchone()
        cursor.execute(
            PAIRS_SQL,
            {"start": start, "end": end, "min_games": PAIR_MIN_GAMES, "factor": PAIR_FACTOR},
        )
        pair_rows = cursor.fetchall()
        cursor.execute(SHARED_CLIENTS_SQL, {"start": start, "end": end})
        client_rows = cursor.fetchall()
        cursor.execute(AWAY_SQL, {"start": start, "end": end})
        away_rows = cursor.fetchall()

    pairs = []
    for first, second, shared, game_ids, first_games, second_games, expected in pair_rows:
        chance = poisson_tail(shared, expected)
        if chance < PAIR_MAX_CHANCE:
            pairs.append(
                PairFlag(
                    first=first,
                    second=second,
                    shared=shared,
                    expected=expected,
                    first_games=first_games,
                    second_games=second_games,
                    chance=chance,
                    game_ids=game_ids,
                )
            )
    total_moves = sum(row[1] for row in away_rows)
    report.away_average = sum(row[2] for row in away_rows) / total_moves if total_moves else 0.0
    away = [
        AwayFlag(user_id, moves, automatic, games, game_ids, report.away_average)
        for user_id, moves, automatic, games, game_ids in away_rows
        if games >= AWAY_MIN_GAMES
        and automatic / moves >= max(AWAY_FACTOR * report.away_average, AWAY_MIN_SHARE)
    ]
    shared_clients = [SharedClientFlag(*row) for row in client_rows]

    couples = [*pairs, *shared_clients]
    users = _users(
        {flag.first for flag in couples}
        | {flag.second for flag in couples}
        | {flag.user for flag in away}
    )
    for flag in couples:
        flag.first, flag.second = users[flag.first], users[flag.second]
    for flag in away:
        flag.user = users[flag.user]
    _add_results(pairs)
    if users:
        blocks = StakeBlock.objects.filter(user_id__in=users, ends_at__gt=timezone.now())
        report.blocks = {block.user_id: block for block in blocks.order_by("ends_at")}
    report.pairs = pairs
    report.shared_clients = shared_clients
    report.away = sorted(away, key=lambda flag: -flag.share)
    return report


def _users(ids: set[int]) -> dict:
    return get_user_model().objects.in_bulk(ids) if ids else {}


def _add_results(pairs: list[PairFlag]) -> None:
    """Each flagged player's result in the games he shared with the other: what the bank
    settlement paid him (ledger entries) minus his stake."""
    if not pairs:
        return
    game_ids = {game_id for pair in pairs for game_id in pair.game_ids}
    paid = defaultdict(int)
    rows = (
        Entry.objects.filter(
            transaction__kind=LedgerTransaction.Kind.BANK_SETTLE,
            transaction__game_id__in=game_ids,
            account__kind=Account.Kind.USER,
        )
        .values_list("transaction__game_id", "account__user_id")
        .annotate(total=Sum("amount"))
    )
    for game_id, user_id, total in rows:
        paid[game_id, user_id] = total
    stakes = dict(Game.objects.filter(pk__in=game_ids).values_list("pk", "stake"))
    for pair in pairs:
        for game_id in pair.game_ids:
            pair.first_net += paid[game_id, pair.first.pk] - stakes[game_id]
            pair.second_net += paid[game_id, pair.second.pk] - stakes[game_id]
