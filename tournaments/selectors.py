"""Reads: the tournaments' lists and standings, a player's history, and the tournaments' part
of ``manage.py ledger_check``."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from django.db.models import Count, Min, Q, QuerySet
from django.utils import timezone

from games.models import Table
from tournaments.models import Entry, Kind, Tournament
from wallet.models import Account
from wallet.models import Entry as LedgerEntry
from wallet.selectors import LedgerReport

# Entries that take part (all but the withdrawn).
ACTIVE = (
    Entry.Status.REGISTERED,
    Entry.Status.WAITING,
    Entry.Status.PLAYING,
    Entry.Status.AWAY,
    Entry.Status.OUT,
    Entry.Status.DONE,
)
FINISHED_SHOWN = 20


def tournament_lists(*, now: datetime | None = None) -> dict[str, list[Tournament]]:
    """Upcoming (registration open), running and recently finished tournaments, each with its
    number of players (one statement each)."""
    players = Count("entries", filter=Q(entries__status__in=ACTIVE))
    base = Tournament.objects.annotate(players=players)
    return {
        "upcoming": list(
            base.filter(status=Tournament.Status.REGISTERING).order_by("starts_at", "pk")
        ),
        "running": list(base.filter(status=Tournament.Status.RUNNING).order_by("starts_at", "pk")),
        "finished": list(
            base.filter(
                status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
            ).order_by("-finished_at")[:FINISHED_SHOWN]
        ),
    }


def standings(tournament: Tournament) -> list[list[Entry]]:
    """The entries in groups sharing a place, best first.

    Arena: points, then the better average place, then who reached his score earlier. Sit &
    Go: the final table's places, then those still in, then those knocked out later, by points.
    """
    entries = list(
        tournament.entries.filter(status__in=ACTIVE).select_related("user").order_by("pk")
    )
    far = timezone.now() + timedelta(days=36500)
    if tournament.kind == Kind.ARENA:
        entries.sort(
            key=lambda e: (
                -e.points,
                Fraction(e.places_sum, e.games) if e.games else math.inf,
                e.reached_at or far,
                e.pk,
            )
        )
        return [[entry] for entry in entries]
    final = sorted((e for e in entries if e.place is not None), key=lambda e: (e.place, e.pk))
    groups: list[list[Entry]] = []
    for entry in final:
        if groups and groups[-1][0].place == entry.place:
            groups[-1].append(entry)
        else:
            groups.append([entry])
    rest = sorted(
        (e for e in entries if e.place is None),
        key=lambda e: (e.out_round is not None, -(e.out_round or 0), -e.points, e.pk),
    )
    return groups + [[entry] for entry in rest]


def standings_rows(tournament: Tournament) -> list[dict[str, Any]]:
    """The standings as pages and sockets show them: place, nickname, points, games, status,
    prize; during play in the order that would decide the prizes now."""
    rows, position = [], 1
    for group in standings(tournament):
        for entry in group:
            rows.append(
                {
                    "place": entry.place or position,
                    "nickname": entry.user.username,
                    "points": entry.points_shown,
                    "games": entry.games,
                    "streak": tournament.kind == "arena" and entry.top_half_run >= 2,
                    "status": entry.status,
                    "status_label": str(entry.get_status_display()),
                    "prize": entry.prize,
                }
            )
        position += len(group)
    return rows


def current_table(*, tournament: Tournament, user) -> int | None:
    """The table where the player is playing this tournament's game now, if any."""
    if getattr(user, "pk", None) is None:
        return None
    return (
        Table.objects.filter(
            tournament_id=tournament.pk,
            status=Table.Status.PLAYING,
            seat_set__user_id=user.pk,
            seat_set__left_at__isnull=True,
        )
        .values_list("pk", flat=True)
        .first()
    )


def entry_of(*, tournament: Tournament, user) -> Entry | None:
    if getattr(user, "pk", None) is None:
        return None
    return tournament.entries.filter(user_id=user.pk, status__in=ACTIVE).first()


def player_history(*, user) -> QuerySet[Entry]:
    """The player's tournaments, newest first."""
    return (
        Entry.objects.filter(user_id=user.pk, status__in=ACTIVE)
        .select_related("tournament")
        .order_by("-registered_at")
    )


def player_medals(*, user) -> dict[str, Any]:
    """Medals (places 1-3 of finished tournaments) and the best place, in one statement."""
    return Entry.objects.filter(
        user_id=user.pk, tournament__status=Tournament.Status.FINISHED, place__isnull=False
    ).aggregate(
        gold=Count("pk", filter=Q(place=1)),
        silver=Count("pk", filter=Q(place=2)),
        bronze=Count("pk", filter=Q(place=3)),
        best=Min("place"),
        played=Count("pk"),
    )


# --- the ledger audit --------------------------------------------------------------------------


def ledger_report() -> LedgerReport:
    """Every entry held is paid out or returned exactly once: a tournament's pool holds the
    entries not yet returned while it is open or running, nothing once it has ended; each
    posting moved exactly the entry's cost; each finished tournament with prizes or money held
    paid them in its one posting, whose players' credits are the entries' prizes."""
    findings: list[str] = []
    tournaments = {t.pk: t for t in Tournament.objects.all()}
    pools = dict(
        Account.objects.filter(kind=Account.Kind.TOURNAMENT_POOL).values_list(
            "tournament_id", "balance"
        )
    )
    entries = list(Entry.objects.all())
    moved: dict[tuple[int, int], int] = {
        (row["transaction_id"], row["account__user_id"]): row["amount"]
        for row in LedgerEntry.objects.filter(
            transaction__kind__in=["tourney_entry", "tourney_refund", "tourney_payout"],
            account__kind=Account.Kind.USER,
        ).values("transaction_id", "account__user_id", "amount")
    }
    expected: dict[int, int] = defaultdict(int)
    prizes: dict[int, dict[int, int]] = defaultdict(dict)
    for entry in entries:
        tournament = tournaments[entry.tournament_id]
        cost = tournament.entry_cost
        if cost and entry.hold_id is None:
            findings.append(f"tournament entry {entry.pk} was never held")
        if entry.hold_id is not None and moved.get((entry.hold_id, entry.user_id)) != -cost:
            findings.append(f"tournament entry {entry.pk}: its hold did not take {cost}")
        if entry.refund_id is not None and moved.get((entry.refund_id, entry.user_id)) != cost:
            findings.append(f"tournament entry {entry.pk}: its return did not give back {cost}")
        must_return = entry.status == Entry.Status.WITHDRAWN or (
            tournament.status == Tournament.Status.CANCELLED
        )
        if entry.hold_id is not None and must_return != (entry.refund_id is not None):
            findings.append(
                f"tournament entry {entry.pk} ({entry.status}, tournament {tournament.status}) "
                f"{'was' if entry.refund_id else 'was not'} returned"
            )
        if (
            entry.hold_id is not None
            and entry.refund_id is None
            and tournament.status
            in (
                Tournament.Status.REGISTERING,
                Tournament.Status.RUNNING,
            )
        ):
            expected[tournament.pk] += cost
        if entry.prize:
            prizes[tournament.pk][entry.user_id] = entry.prize
    for pk, tournament in tournaments.items():
        if pools.get(pk, 0) != expected[pk]:
            findings.append(
                f"tournament {pk} ({tournament.status}) pool holds {pools.get(pk, 0)}, "
                f"its entries held are {expected[pk]}"
            )
        if tournament.status == Tournament.Status.FINISHED and tournament.payout_id is not None:
            paid = {
                user_id: amount
                for (transaction_id, user_id), amount in moved.items()
                if transaction_id == tournament.payout_id
            }
            if paid != prizes[pk]:
                findings.append(f"tournament {pk} paid {paid}, its prizes are {prizes[pk]}")
        elif prizes[pk]:
            findings.append(f"tournament {pk} ({tournament.status}) has prizes but no payout")
    return LedgerReport(
        checked={"tournaments": len(tournaments), "tournament entries": len(entries)},
        findings=findings,
    )


def countdown_to(tournament: Tournament) -> datetime | None:
    """When the tournament's next moment comes: its start, or its end while it runs."""
    if tournament.status == Tournament.Status.REGISTERING:
        return tournament.starts_at
    if tournament.status == Tournament.Status.RUNNING:
        return tournament.ends_at
    return None
