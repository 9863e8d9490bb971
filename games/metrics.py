"""The games' metrics: moves, deadlines and the sweeper as they happen, and at each scrape the
games being played, the tables and their players (``durak_site.ops.metrics`` serves them)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count
from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from games.models import Game, Seat

# A move's server time from the socket's receipt of it: "committed" once its transaction is,
# "sent" once the last seat's state has left for its sockets. The alert's 300 ms is a bound.
MOVE_SECONDS = Histogram(
    "durak_move_seconds",
    "A move's server time from its receipt, to its commit and to the last seat's send",
    ["stage"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.5, 5.0),
)
MOVES = Counter("durak_moves_total", "Moves played, by players and by the server", ["by"])
# How long after its deadline the server moved for an idle player.
DEADLINE_LATENESS = Histogram(
    "durak_deadline_lateness_seconds",
    "How late after its deadline a timeout was acted on",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0),
)
# What the sweeper found undone (a lost timer, an expired rematch, an abandoned table).
SWEEPER_CATCHUPS = Counter(
    "durak_sweeper_catchups_total", "What the games sweep caught up on, by kind", ["kind"]
)


# Present from the start, at zero: a rate then counts the first moves too.
for stage in ("committed", "sent"):
    MOVE_SECONDS.labels(stage)
for mover in ("player", "server"):
    MOVES.labels(mover)


def sweeper_caught_up(kind: str, count: int) -> None:
    if count:
        SWEEPER_CATCHUPS.labels(kind).inc(count)


class TablesCollector(Collector):
    """Games being played, and tables with their seated players by the table's status: two
    statements over the partial indexes of playing games and of occupied seats."""

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "durak_games_playing",
            "Games being played",
            value=Game.objects.filter(status=Game.Status.PLAYING).count(),
        )
        tables = GaugeMetricFamily(
            "durak_tables", "Tables with a seated player, by status", labels=["status"]
        )
        players = GaugeMetricFamily(
            "durak_players_seated", "Players seated, by their table's status", labels=["status"]
        )
        counted = dict.fromkeys(("open", "playing", "closed"), (0, 0))
        rows = (
            Seat.objects.filter(left_at__isnull=True)
            .values_list("table__status")
            .annotate(tables=Count("table", distinct=True), players=Count("pk"))
        )
        counted.update((status, (table_count, seated)) for status, table_count, seated in rows)
        for status, (table_count, player_count) in counted.items():
            tables.add_metric([status], table_count)
            players.add_metric([status], player_count)
        yield tables
        yield players
