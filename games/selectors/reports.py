"""The daily operations report: money by ledger kind, players and games, per day, week or month.

Money comes from the ledger alone, grouped by transaction kind, so a new kind of transaction
shows up in the report without changes here. Periods are calendar days, weeks (from Monday) or
months in the site's time zone. Bots and staff are not counted as players, and practice games
are counted apart from games with stakes. Eight queries whatever the period's length.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDay, TruncMonth, TruncWeek
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import Game, GameEvent
from wallet.models import Account, Entry, LedgerTransaction

GROUPINGS = {"day": TruncDay, "week": TruncWeek, "month": TruncMonth}
GROUPING_LABELS = {"day": _("by day"), "week": _("by week"), "month": _("by month")}
Kind = LedgerTransaction.Kind


@dataclass
class Bucket:
    """One day, week or month of the report."""

    start: date
    # Per transaction kind: the money it moved (sum of credits), and per account kind its net
    # effect on the accounts of that kind (player wallets, the house, pending withdrawals...).
    moved: Counter = field(default_factory=Counter)
    net: defaultdict = field(default_factory=lambda: defaultdict(Counter))
    # Withdrawals asked for and neither paid out nor returned when the period ends.
    withdrawals_pending: int = 0
    new_players: int = 0
    active_players: int = 0
    paying_players: int = 0
    games: int = 0
    practice_games: int = 0
    games_by_players: Counter = field(default_factory=Counter)
    seconds_played: float = 0.0
    timeouts: int = 0
    stalemates: int = 0

    @property
    def stakes_held(self) -> int:
        return self.moved[Kind.STAKE_HOLD]

    @property
    def stakes_returned(self) -> int:
        return self.moved[Kind.STAKE_RELEASE]

    @property
    def banks_settled(self) -> int:
        return self.moved[Kind.BANK_SETTLE]

    @property
    def commission(self) -> int:
        return self.net[Account.Kind.HOUSE][Kind.BANK_SETTLE]

    @property
    def deposits(self) -> int:
        return self.net[Account.Kind.USER][Kind.DEPOSIT]

    @property
    def withdrawals_requested(self) -> int:
        return self.moved[Kind.WITHDRAWAL_HOLD]

    @property
    def withdrawals_paid(self) -> int:
        return self.net[Account.Kind.EXTERNAL][Kind.WITHDRAWAL]

    @property
    def staff_adjustments(self) -> int:
        """Net amount staff credited (positive) or debited (negative) to players, bonuses too."""
        return sum(self.net[Account.Kind.USER][kind] for kind in (Kind.ADJUSTMENT, Kind.BONUS))

    @property
    def average_game_seconds(self) -> float | None:
        return self.seconds_played / self.games if self.games else None


@dataclass
class OperationsReport:
    since: date
    until: date
    grouping: str
    buckets: list[Bucket]
    total: Bucket
    kinds: list[tuple[str, str]]


def bucket_start(day: date, grouping: str) -> date:
    if grouping == "week":
        return day - timedelta(days=day.weekday())
    if grouping == "month":
        return day.replace(day=1)
    return day


def period_bounds(since: date, until: date) -> tuple[datetime, datetime]:
    zone = timezone.get_current_timezone()
    start = datetime.combine(since, time.min, tzinfo=zone)
    end = datetime.combine(until + timedelta(days=1), time.min, tzinfo=zone)
    return start, end


def operations_report(*, since: date, until: date, grouping: str = "day") -> OperationsReport:
    """Every figure of the report for local dates ``since``..``until`` (inclusive)."""
    if grouping not in GROUPINGS:
        raise ValueError(f"unknown grouping {grouping!r}")
    trunc = GROUPINGS[grouping]
    zone = timezone.get_current_timezone()
    start, end = period_bounds(since, until)
    buckets: dict[date, Bucket] = {}
    day = since
    while day <= until:
        key = bucket_start(day, grouping)
        buckets.setdefault(key, Bucket(start=key))
        day += timedelta(days=1)

    def bucket(moment: datetime) -> Bucket:
        return buckets[bucket_start(timezone.localtime(moment, zone).date(), grouping)]

    money = (
        Entry.objects.filter(transaction__created_at__gte=start, transaction__created_at__lt=end)
        .annotate(period=trunc("transaction__created_at", tzinfo=zone))
        .values("period", "transaction__kind", "account__kind")
        .annotate(total=Sum("amount"), credits=Sum("amount", filter=Q(amount__gt=0)))
    )
    for row in money:
        target, kind = bucket(row["period"]), row["transaction__kind"]
        target.moved[kind] += row["credits"] or 0
        target.net[row["account__kind"]][kind] += row["total"]
    pending = (
        Entry.objects.filter(
            account__kind=Account.Kind.PENDING_PAYOUTS, transaction__created_at__lt=start
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    for key in sorted(buckets):
        pending += sum(buckets[key].net[Account.Kind.PENDING_PAYOUTS].values())
        buckets[key].withdrawals_pending = pending

    paying = (
        Entry.objects.filter(
            transaction__created_at__gte=start,
            transaction__created_at__lt=end,
            transaction__kind=Kind.DEPOSIT,
            account__kind=Account.Kind.USER,
        )
        .annotate(period=trunc("transaction__created_at", tzinfo=zone))
        .values_list("period", "account_id")
        .distinct()
    )
    payers: dict[date, set[int]] = defaultdict(set)
    for period, account_id in paying:
        payers[bucket(period).start].add(account_id)

    # Practice bots and staff play, but are not players: they are left out of every count.
    not_players = set(
        get_user_model()
        .objects.filter(Q(is_staff=True) | Q(bot__isnull=False))
        .values_list("id", flat=True)
    )
    joined = (
        get_user_model()
        .objects.filter(date_joined__gte=start, date_joined__lt=end)
        .exclude(id__in=not_players)
        .annotate(period=trunc("date_joined", tzinfo=zone))
        .values("period")
        .annotate(players=Count("id"))
    )
    for row in joined:
        bucket(row["period"]).new_players = row["players"]

    active: dict[date, set[int]] = defaultdict(set)
    games = Game.objects.filter(started_at__gte=start, started_at__lt=end).values_list(
        "started_at", "finished_at", "status", "players", "stalemate", "table__practice"
    )
    for started_at, finished_at, status, players, stalemate, practice in games:
        target = bucket(started_at)
        active[target.start].update(set(players) - not_players)
        if status != Game.Status.FINISHED:
            continue
        if practice:
            target.practice_games += 1
            continue
        target.games += 1
        target.games_by_players[len(players)] += 1
        target.seconds_played += (finished_at - started_at).total_seconds()
        target.stalemates += stalemate
    for key, players in active.items():
        buckets[key].active_players = len(players)
    for key, accounts in payers.items():
        buckets[key].paying_players = len(accounts)

    timeouts = (
        GameEvent.objects.filter(
            automatic=True, game__started_at__gte=start, game__started_at__lt=end
        )
        .annotate(period=trunc("game__started_at", tzinfo=zone))
        .values("period")
        .annotate(events=Count("id"))
    )
    for row in timeouts:
        bucket(row["period"]).timeouts = row["events"]

    ordered = [buckets[key] for key in sorted(buckets)]
    return OperationsReport(
        since=since,
        until=until,
        grouping=grouping,
        buckets=ordered,
        total=_total(ordered, since, active=active, payers=payers),
        kinds=[(kind.value, kind.label) for kind in Kind],
    )


def _total(buckets: list[Bucket], since: date, *, active: dict, payers: dict) -> Bucket:
    """The whole period; distinct players are counted once, not once per day."""
    total = Bucket(start=since)
    for part in buckets:
        total.moved.update(part.moved)
        for account_kind, amounts in part.net.items():
            total.net[account_kind].update(amounts)
        total.games_by_players.update(part.games_by_players)
        total.new_players += part.new_players
        total.games += part.games
        total.practice_games += part.practice_games
        total.seconds_played += part.seconds_played
        total.timeouts += part.timeouts
        total.stalemates += part.stalemates
    total.withdrawals_pending = buckets[-1].withdrawals_pending if buckets else 0
    total.active_players = len(set().union(*active.values()))
    total.paying_players = len(set().union(*payers.values()))
    return total


@dataclass(frozen=True)
class Column:
    label: str
    value: Callable[[Bucket], int | float | None]
    unit: str  # "money" (minor units), "count" or "minutes"


def report_columns(report: OperationsReport) -> list[Column]:
    """The report's figures in display order; one column per player count seen in a game."""
    sizes = sorted(report.total.games_by_players)
    return [
        Column(_("stakes held"), lambda b: b.stakes_held, "money"),
        Column(_("stakes returned"), lambda b: b.stakes_returned, "money"),
        Column(_("banks settled"), lambda b: b.banks_settled, "money"),
        Column(_("house commission"), lambda b: b.commission, "money"),
        Column(_("deposits"), lambda b: b.deposits, "money"),
        Column(_("withdrawals requested"), lambda b: b.withdrawals_requested, "money"),
        Column(_("withdrawals paid"), lambda b: b.withdrawals_paid, "money"),
        Column(_("withdrawals pending at the end"), lambda b: b.withdrawals_pending, "money"),
        Column(_("staff adjustments"), lambda b: b.staff_adjustments, "money"),
        Column(_("new players"), lambda b: b.new_players, "count"),
        Column(_("active players"), lambda b: b.active_players, "count"),
        Column(_("paying players"), lambda b: b.paying_players, "count"),
        Column(_("games finished"), lambda b: b.games, "count"),
        Column(_("practice games finished"), lambda b: b.practice_games, "count"),
        *(
            Column(
                _("games of %(players)d players") % {"players": size},
                lambda b, size=size: b.games_by_players[size],
                "count",
            )
            for size in sizes
        ),
        Column(
            _("average game, min"),
            lambda b: None if b.average_game_seconds is None else b.average_game_seconds / 60,
            "minutes",
        ),
        Column(_("timeouts"), lambda b: b.timeouts, "count"),
        Column(_("stalemates"), lambda b: b.stalemates, "count"),
    ]
