"""Tournament commands: registration and its money, the start, seating (Sit & Go rounds, the
Arena's pairing pool), a game's result, the prizes, cancellation, and the clock that runs them.

Every command runs in one transaction that locks the tournament row first; a game's end comes
here with its table and game locked (``games.services.play``), then the tournament, then the
wallet: one order everywhere. The state is all in PostgreSQL, so the clock (``tournaments_tick``,
run by beat and after each game) may run twice, or after a worker's restart, and does only
what is still due.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from durak_site.audit.services import record_staff_action
from durak_site.web.client_source import Client
from games.errors import GameError
from games.models import Game
from games.services.blocks import check_not_blocked
from games.services.tables import tournament_table_open
from tournaments import effects, scoring
from tournaments.models import Entry, Kind, Template, Tournament, TournamentGame
from tournaments.selectors import ACTIVE, standings
from wallet import limits
from wallet import services as wallet_services
from wallet.models import LedgerTransaction
from wallet.services import WalletError

# An Arena seats fewer than a full table once the first of them has waited this long.
PAIRING_WAIT = timedelta(seconds=10)

ERROR_MESSAGES = {
    "tournament_not_found": _("There is no such tournament."),
    "registration_closed": _("Registration for this tournament is closed."),
    "tournament_full": _("Every seat in this tournament is taken."),
    "already_registered": _("You are already registered."),
    "not_registered": _("You are not registered for this tournament."),
    "tournament_started": _("The tournament has started: your entry stays in it."),
    "not_away": _("You are not away from this arena."),
    "tournament_over": _("The tournament is over."),
    "cancel_refused": _("Only a tournament that has not finished can be cancelled, with a reason."),
}


class TournamentError(Exception):
    def __init__(self, code: str, message: str | None = None) -> None:
        self.code = code
        self.message = str(message if message is not None else ERROR_MESSAGES[code])
        super().__init__(self.message)


def _lock(tournament_id: object) -> Tournament:
    if type(tournament_id) is not int:
        raise TournamentError("tournament_not_found")
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentError("tournament_not_found")
    return tournament


def _active(tournament: Tournament):
    return tournament.entries.filter(status__in=ACTIVE)


# --- registration ------------------------------------------------------------------------------


def tournament_register(
    *, tournament_id: int, user, client: Client | None = None, now: datetime | None = None
) -> Entry:
    """Register the player: his buy-in and the house fee are held in the tournament's pool in
    one posting, after the checks a seat at a stake table makes (staff blocks, breaks, loss
    limits, identity). The last seat of a Sit & Go starts it; an Arena may be joined while it
    runs."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock(tournament_id)
        arena_open = (
            tournament.kind == Kind.ARENA
            and tournament.status == Tournament.Status.RUNNING
            and now < tournament.ends_at
        )
        if tournament.status != Tournament.Status.REGISTERING and not arena_open:
            raise TournamentError("registration_closed")
        entries = _active(tournament)
        if entries.filter(user_id=user.pk).exists():
            raise TournamentError("already_registered")
        taken = entries.count()
        if tournament.kind == Kind.SIT_AND_GO and taken >= tournament.seats:
            raise TournamentError("tournament_full")
        try:
            check_not_blocked(user=user)
            # A freeroll stakes nothing, but a player on a break does not play at all.
            wallet = limits.check_stake(user=user, amount=tournament.entry_cost)
            entry = Entry.objects.create(
                tournament=tournament,
                user=user,
                client_address=client and client.address,
                browser_id=client.browser_id if client else "",
                user_agent_hash=client.user_agent_hash if client else "",
            )
            if tournament.entry_cost:
                entry.hold = wallet_services.post(
                    kind=LedgerTransaction.Kind.TOURNAMENT_ENTRY,
                    idempotency_key=f"tournament:{tournament.pk}:entry:{entry.pk}:hold",
                    movements={
                        wallet: -tournament.entry_cost,
                        wallet_services.tournament_pool(tournament.pk): tournament.entry_cost,
                    },
                    initiated_by=user,
                )
        except (WalletError, GameError) as error:
            raise TournamentError(error.code, error.message) from error
        if arena_open:
            entry.status, entry.waiting_since = Entry.Status.WAITING, now
        entry.save()
        if tournament.kind == Kind.SIT_AND_GO and taken + 1 == tournament.seats:
            _start(tournament, now)
        effects.standings_changed(tournament.pk)
    return entry


def tournament_unregister(*, tournament_id: int, user) -> Entry:
    """Withdraw before the start: the held entry returns in one posting."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = _active(tournament).filter(user_id=user.pk).first()
        if entry is None:
            raise TournamentError("not_registered")
        if tournament.status != Tournament.Status.REGISTERING:
            raise TournamentError("tournament_started")
        _refund(tournament, entry)
        entry.status = Entry.Status.WITHDRAWN
        entry.save(update_fields=["status", "refund"])
        effects.standings_changed(tournament.pk)
    return entry


def arena_back(*, tournament_id: int, user, now: datetime | None = None) -> Entry:
    """An arena player who was away (or paused) comes back into the pairing pool."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = _active(tournament).filter(user_id=user.pk).first()
        if entry is None:
            raise TournamentError("not_registered")
        if tournament.status != Tournament.Status.RUNNING or now >= tournament.ends_at:
            raise TournamentError("tournament_over")
        if entry.status != Entry.Status.AWAY:
            raise TournamentError("not_away")
        entry.status, entry.waiting_since = Entry.Status.WAITING, now
        entry.save(update_fields=["status", "waiting_since"])
        _advance(tournament, now)
        effects.standings_changed(tournament.pk)
    return entry


def arena_pause(*, tournament_id: int, user) -> Entry:
    """An arena player leaves the pairing pool until he comes back (his points stay)."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = _active(tournament).filter(user_id=user.pk, status=Entry.Status.WAITING).first()
        if entry is None:
            raise TournamentError("not_registered")
        entry.status, entry.waiting_since = Entry.Status.AWAY, None
        entry.save(update_fields=["status", "waiting_since"])
        effects.standings_changed(tournament.pk)
    return entry


def _refund(tournament: Tournament, entry: Entry) -> None:
    if entry.hold_id is None:
        return
    entry.refund = wallet_services.post(
        kind=LedgerTransaction.Kind.TOURNAMENT_REFUND,
        idempotency_key=f"tournament:{tournament.pk}:entry:{entry.pk}:refund",
        movements={
            wallet_services.tournament_pool(tournament.pk): -tournament.entry_cost,
            wallet_services.user_account(entry.user): tournament.entry_cost,
        },
    )


def tournament_cancel(*, tournament_id: int, reason: str, staff_user=None) -> Tournament:
    """Cancel a tournament that has not finished: every entry held returns exactly, each in
    one posting; staff cancellations are recorded in the audit trail. Games still running
    finish as they are and count for nothing."""
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("cancel_refused")
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise TournamentError("cancel_refused")
        _cancel(tournament, reason)
        if staff_user is not None:
            record_staff_action(
                staff=staff_user,
                action="tournaments.cancel",
                reason=reason,
                target=tournament,
                details={"entries": tournament.entries.filter(refund__isnull=False).count()},
            )
    return tournament


def _cancel(tournament: Tournament, reason: str) -> None:
    for entry in _active(tournament).select_related("user").order_by("pk"):
        _refund(tournament, entry)
        entry.status = Entry.Status.DONE
        entry.save(update_fields=["status", "refund"])
    tournament.status = Tournament.Status.CANCELLED
    tournament.cancel_reason = reason[:200]
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "cancel_reason", "finished_at"])
    effects.standings_changed(tournament.pk)


# --- the start and seating ---------------------------------------------------------------------


def _start(tournament: Tournament, now: datetime) -> None:
    entries = list(_active(tournament))
    if len(entries) < (tournament.min_players if tournament.kind == Kind.ARENA else 2):
        _cancel(tournament, str(_("Too few players registered.")))
        return
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = now
    if tournament.kind == Kind.ARENA:
        tournament.ends_at = tournament.starts_at + timedelta(minutes=tournament.minutes)
    tournament.save(update_fields=["status", "started_at", "ends_at"])
    _active(tournament).update(status=Entry.Status.WAITING, waiting_since=now)
    effects.tournament_started(tournament.pk, [entry.user_id for entry in entries])
    _advance(tournament, now)


def _seat(tournament: Tournament, entries: Sequence[Entry], round_number: int = 0) -> None:
    game = tournament_table_open(
        tournament_id=tournament.pk,
        users=[entry.user for entry in entries],
        clients=[entry.client for entry in entries],
        turn_seconds=tournament.turn_seconds,
        throw_seconds=tournament.throw_seconds,
        options=tournament.options,
    )
    TournamentGame.objects.create(tournament=tournament, game=game, round=round_number)
    Entry.objects.filter(pk__in=[entry.pk for entry in entries]).update(
        status=Entry.Status.PLAYING, waiting_since=None
    )


def _table_sizes(players: int, size: int) -> list[int]:
    """Tables for `players` with at most `size` at each, as even as they can be."""
    tables = math.ceil(players / size)
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def _advance(tournament: Tournament, now: datetime) -> bool:
    """Do what is due now (tournament row locked): seat the next round or the waiting pool,
    or finish; whether anything was done (the callers tell the tournament's sockets)."""
    if tournament.status != Tournament.Status.RUNNING:
        return False
    running = tournament.games.filter(finished=False).exists()
    waiting = list(
        tournament.entries.filter(status=Entry.Status.WAITING)
        .select_related("user")
        .order_by("waiting_since", "pk")
    )
    if tournament.kind == Kind.SIT_AND_GO:
        if running:
            return False
        if not waiting:
            _finish(tournament, now)
        else:
            tournament.round += 1
            tournament.save(update_fields=["round"])
            secrets.SystemRandom().shuffle(waiting)
            start = 0
            for size in _table_sizes(len(waiting), tournament.table_size):
                _seat(tournament, waiting[start : start + size], tournament.round)
                start += size
    elif now >= tournament.ends_at:
        if running:
            return False
        _finish(tournament, now)
    else:
        groups = _arena_groups(tournament, waiting, now, running)
        if not groups:
            return False
        for group in groups:
            _seat(tournament, group)
    return True


def _arena_groups(
    tournament: Tournament, waiting: list[Entry], now: datetime, running: bool
) -> list[list[Entry]]:
    """Full tables from the pool, longest waiting first, each avoiding players who just sat
    together where the pool allows; the rest (two or more) sit together once the first of them
    has waited PAIRING_WAIT, or at once when no game is running to bring anyone back."""
    size, groups, pool = tournament.table_size, [], list(waiting)
    while len(pool) >= size:
        group = [pool.pop(0)]
        for candidate in list(pool):
            if len(group) == size:
                break
            if all(
                candidate.last_game_id is None or candidate.last_game_id != e.last_game_id
                for e in group
            ):
                group.append(candidate)
                pool.remove(candidate)
        while len(group) < size:
            group.append(pool.pop(0))
        groups.append(group)
    if len(pool) >= 2 and (not running or now - pool[0].waiting_since >= PAIRING_WAIT):
        groups.append(pool)
    return groups


# --- a game's end ------------------------------------------------------------------------------


def game_finished(
    *, tournament_id: int, game: Game, places: list[list[int]], away: set[int]
) -> None:
    """Count a finished tournament game (called by the games inside the game's transaction):
    points by exit place, the Arena's streaks, the Sit & Go's knockout; then seat whoever is
    due or finish the tournament. Counted once: a repeat finds the game counted."""
    tournament = _lock(tournament_id)
    counted = TournamentGame.objects.filter(game=game, finished=False).update(finished=True)
    if not counted or tournament.status != Tournament.Status.RUNNING:
        return
    now = game.finished_at
    players = len(game.players)
    entries = {
        entry.user_id: entry
        for entry in tournament.entries.filter(
            user_id__in=game.players, status=Entry.Status.PLAYING
        )
    }
    arena = tournament.kind == Kind.ARENA
    # A Sit & Go round of one table held everyone still in: its places are the final ones.
    final = not arena and tournament.games.filter(round=tournament.round).count() == 1
    scored = scoring.game_points([len(group) for group in places], players)
    for group, (place, points) in zip(places, scored, strict=True):
        last = group is places[-1] and len(group) < players
        for user_id in group:
            entry = entries[user_id]
            # Two top-half finishes in a row before this game: a streak doubles its points.
            points_won = points * 2 if arena and entry.top_half_run >= 2 else points
            entry.top_half_run = (
                entry.top_half_run + 1 if scoring.top_half(place, len(group), players) else 0
            )
            entry.points += points_won
            entry.games += 1
            entry.places_sum += place
            if points_won:
                entry.reached_at = now
            entry.last_game = game
            if final:
                entry.status, entry.place = Entry.Status.DONE, place
            elif not arena and last:
                entry.status, entry.out_round = Entry.Status.OUT, tournament.round
            elif arena and (user_id in away or now >= tournament.ends_at):
                entry.status = Entry.Status.AWAY if now < tournament.ends_at else Entry.Status.DONE
                entry.waiting_since = None
            else:
                entry.status, entry.waiting_since = Entry.Status.WAITING, now
    Entry.objects.bulk_update(
        entries.values(),
        [
            "status",
            "points",
            "games",
            "places_sum",
            "top_half_run",
            "reached_at",
            "last_game",
            "place",
            "out_round",
            "waiting_since",
        ],
    )
    if not arena:
        _advance(tournament, now)  # the next round, or the end, once the round's last is in
    else:
        effects.tick_soon(tournament.pk)
    effects.standings_changed(tournament.pk)


# --- the end and the prizes --------------------------------------------------------------------


def _finish(tournament: Tournament, now: datetime) -> None:
    """Give the places and pay the prizes in one posting: the pool's entries out, the fees to
    the house, the house's added prize in, each prize to its winner."""
    ranking = standings(tournament)
    entries = [entry for group in ranking for entry in group]
    pool = tournament.buy_in * len(entries) + tournament.house_prize
    weights = scoring.prize_weights(
        tournament.prize_percentages, tournament.prize_top_percent, len(entries)
    )
    prizes = scoring.prize_amounts(pool, weights, [[e.pk for e in group] for group in ranking])
    position = 1
    for group in ranking:
        for entry in group:
            entry.place = position
            entry.prize = prizes.get(entry.pk, 0)
            entry.status = Entry.Status.DONE
        position += len(group)
    movements: dict = {}
    held = tournament.entry_cost * len(entries)
    if held:
        movements[wallet_services.tournament_pool(tournament.pk)] = -held
    house = tournament.fee * len(entries) - tournament.house_prize
    if house:
        movements[wallet_services.house_account()] = house
    wallets = wallet_services.user_accounts({e.user_id for e in entries if e.prize})
    for entry in entries:
        if entry.prize:
            movements[wallets[entry.user_id]] = entry.prize
    if len(movements) >= 2:
        tournament.payout = wallet_services.post(
            kind=LedgerTransaction.Kind.TOURNAMENT_PAYOUT,
            idempotency_key=f"tournament:{tournament.pk}:payout",
            movements=movements,
            content={"places": {str(e.pk): e.place for e in entries}},
        )
    Entry.objects.bulk_update(entries, ["place", "prize", "status"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at", "payout"])


# --- the clock ---------------------------------------------------------------------------------


def tournaments_tick(*, now: datetime | None = None, tournament_id: int | None = None) -> int:
    """Do what is due: make the templates' tournaments, start the Arenas whose time has come,
    cancel the Sit & Gos not full by their deadline, seat the pools and finish what is over.
    Safe to run any number of times; the tournaments acted on."""
    now = now or timezone.now()
    if tournament_id is None:
        templates_materialise(now=now)
    due = Tournament.objects.filter(
        Q(status=Tournament.Status.RUNNING)
        | Q(status=Tournament.Status.REGISTERING, starts_at__lte=now)
    )
    if tournament_id is not None:
        due = due.filter(pk=tournament_id)
    acted = 0
    for pk in due.values_list("pk", flat=True):
        with transaction.atomic():
            tournament = _lock(pk)
            if tournament.status == Tournament.Status.REGISTERING:
                if tournament.starts_at is None or tournament.starts_at > now:
                    continue
                if tournament.kind == Kind.ARENA:
                    _start(tournament, now)
                    effects.standings_changed(tournament.pk)
                else:
                    _cancel(tournament, str(_("Too few players registered.")))
            elif _advance(tournament, now):
                effects.standings_changed(tournament.pk)
            else:
                continue
            acted += 1
    return acted


SETTINGS_FIELDS = (
    "name",
    "kind",
    "seats",
    "table_size",
    "minutes",
    "min_players",
    "buy_in",
    "fee",
    "house_prize",
    "prize_percentages",
    "prize_top_percent",
    "turn_seconds",
    "throw_seconds",
    "transfer",
    "deck",
    "throw_in",
    "limit",
)


def templates_materialise(*, now: datetime) -> int:
    """Make each active template's tournaments: the Arenas starting within its notice, a Sit
    & Go whenever none of it is open for registration. The unique (template, start) keeps a
    repeat, or a second worker, from making one twice."""
    made = 0
    local_now = timezone.localtime(now)
    for template in Template.objects.filter(active=True):
        values = {field: getattr(template, field) for field in SETTINGS_FIELDS}
        if template.kind == Kind.SIT_AND_GO:
            with transaction.atomic():
                Template.objects.select_for_update().get(pk=template.pk)
                if not template.tournaments.filter(status=Tournament.Status.REGISTERING).exists():
                    Tournament.objects.create(template=template, **values)
                    made += 1
            continue
        for days in range(0, template.announce_hours // 24 + 2):
            day = local_now.date() + timedelta(days=days)
            if template.weekdays and day.weekday() not in template.weekdays:
                continue
            starts = timezone.make_aware(datetime.combine(day, template.local_time))
            if starts <= now or starts - now > timedelta(hours=template.announce_hours):
                continue
            _, created = Tournament.objects.get_or_create(
                template=template,
                starts_at=starts,
                defaults=values,
            )
            made += created
    return made
