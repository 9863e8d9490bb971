"""A whole 10-minute Arena of 12 played by bots under the test's clock, and cancellations."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import timedelta
from fractions import Fraction

import pytest
from django.core.management import call_command

from durak_site.audit.models import StaffAction
from games.models import BankDistribution, Seat
from games.selectors.replay import verify_game
from tests.players import create_player
from tests.tournaments.conftest import Clock, play_out, play_running
from tournaments import services
from tournaments.models import Entry, Kind, Tournament, TournamentGame
from wallet import services as wallet_services
from wallet.selectors import user_balance

BALANCE = 50_000
HOUSE_PRIZE = 12_001


def arena(clock: Clock, **fields) -> Tournament:
    values = {
        "name": "Arena",
        "kind": Kind.ARENA,
        "starts_at": clock.now + timedelta(minutes=1),
        "minutes": 10,
        "min_players": 4,
        **fields,
    }
    return Tournament.objects.create(**values)


def exit_points(place: int, shared: int, players: int) -> Fraction:
    """4/2/1/0 at four (each place above the last doubles); a shared place shares them."""
    worth = [2 ** (players - 1 - p) if p < players else 0 for p in range(1, players + 1)]
    return Fraction(sum(worth[place - 1 : place - 1 + shared]), shared)


@pytest.mark.django_db
def test_a_ten_minute_arena_of_12_pairs_from_the_pool_and_pays_by_standings():
    clock = Clock()
    tournament = arena(clock, house_prize=HOUSE_PRIZE, prize_top_percent=25)
    players = [create_player(balance=BALANCE) for _ in range(12)]
    users = {user.pk: user for user in players}
    for user in players:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    house_before = wallet_services.house_account().balance

    services.tournaments_tick(now=clock.advance(seconds=59))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING
    services.tournaments_tick(now=clock.advance(seconds=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    # A repeat of the clock (a second beat, a restarted worker) seats nobody twice.
    services.tournaments_tick(now=clock.now)
    assert TournamentGame.objects.filter(tournament=tournament).count() == 3
    paused = players[0]
    # A round of games every two minutes; the first player pauses for the third and fourth.
    for minute in range(2, 10, 2):
        before = set(
            TournamentGame.objects.filter(tournament=tournament).values_list("pk", flat=True)
        )
        assert play_running(tournament, users) > 0
        if minute == 4:
            services.arena_pause(tournament_id=tournament.pk, user=paused)
        if minute == 8:
            services.arena_back(tournament_id=tournament.pk, user=paused, now=clock.now)
        services.tournaments_tick(now=clock.advance(minutes=2))
        new = TournamentGame.objects.filter(tournament=tournament).exclude(pk__in=before)
        new = new.exclude(finished=True)
        seated = {user_id for tg in new.select_related("game") for user_id in tg.game.players}
        if minute in (4, 6):
            assert paused.pk not in seated, "a player away from the arena is not paired"
            assert len(seated) == 11
        else:
            assert len(seated) == 12
    play_running(tournament, users)
    services.tournaments_tick(now=clock.advance(minutes=2))  # the end: nobody is seated
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    # The standings recomputed from the games' recorded places alone.
    games = [
        tg.game
        for tg in TournamentGame.objects.filter(tournament=tournament).select_related("game")
    ]
    games.sort(key=lambda game: (game.finished_at, game.pk))
    points: dict[int, Fraction] = defaultdict(Fraction)
    places: dict[int, list[int]] = defaultdict(list)
    run: dict[int, int] = defaultdict(int)
    reached: dict[int, object] = {}
    for game in games:
        rows = list(BankDistribution.objects.filter(game=game))
        shared = defaultdict(int)
        for row in rows:
            shared[row.place] += 1
        for row in rows:
            won = exit_points(row.place, shared[row.place], len(rows))
            if run[row.user_id] >= 2:
                won *= 2
            top = 2 * row.place + shared[row.place] - 1 <= len(rows)
            run[row.user_id] = run[row.user_id] + 1 if top else 0
            points[row.user_id] += won
            places[row.user_id].append(row.place)
            if won:
                reached[row.user_id] = game.finished_at
    order = sorted(
        users,
        key=lambda u: (
            -points[u],
            Fraction(sum(places[u]), len(places[u])) if places[u] else math.inf,
            reached.get(u, clock.now),
            Entry.objects.get(tournament=tournament, user_id=u).pk,
        ),
    )
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=tournament)}
    for place, user_id in enumerate(order, start=1):
        assert entries[user_id].points == points[user_id] * 60
        assert entries[user_id].place == place
    # The top 25 % (3 of 12) paid 1 : 1/2 : 1/3 of the house's prize, rounded down, the rest
    # to first.
    weights = [Fraction(6, 11), Fraction(3, 11), Fraction(2, 11)]
    expected = {user_id: 0 for user_id in users}
    for user_id, weight in zip(order, weights, strict=False):
        expected[user_id] = math.floor(HOUSE_PRIZE * weight)
    expected[order[0]] += HOUSE_PRIZE - sum(expected.values())
    for user_id, user in users.items():
        assert entries[user_id].prize == expected[user_id]
        assert user_balance(user=user) == BALANCE + expected[user_id]
    assert wallet_services.house_account().balance == house_before - HOUSE_PRIZE
    assert len(games) >= 12
    for game in games:
        assert verify_game(game) == []
    call_command("ledger_check")


@pytest.mark.django_db
def test_an_arena_with_too_few_players_is_cancelled_and_every_entry_returns_exactly():
    clock = Clock()
    tournament = arena(clock, buy_in=7_777, fee=333, min_players=4)
    players = [create_player(balance=BALANCE) for _ in range(3)]
    for user in players:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    assert wallet_services.tournament_pool(tournament.pk).balance == 3 * 8_110
    services.tournaments_tick(now=clock.advance(minutes=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    for user in players:
        assert user_balance(user=user) == BALANCE
    assert wallet_services.tournament_pool(tournament.pk).balance == 0
    assert Entry.objects.filter(tournament=tournament, refund__isnull=False).count() == 3
    services.tournaments_tick(now=clock.advance(minutes=1))  # a repeat moves nothing
    assert all(user_balance(user=user) == BALANCE for user in players)
    call_command("ledger_check")


@pytest.mark.django_db
def test_staff_cancel_refunds_and_is_recorded_in_the_audit_trail():
    clock = Clock()
    tournament = arena(clock, buy_in=5_000, fee=500)
    staff = create_player(is_staff=True)
    players = [create_player(balance=BALANCE) for _ in range(5)]
    for user in players:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    with pytest.raises(services.TournamentError):
        services.tournament_cancel(tournament_id=tournament.pk, reason=" ", staff_user=staff)
    services.tournament_cancel(tournament_id=tournament.pk, reason="server move", staff_user=staff)
    assert all(user_balance(user=user) == BALANCE for user in players)
    action = StaffAction.objects.get(action="tournaments.cancel")
    assert action.staff_id == staff.pk and action.reason == "server move"
    with pytest.raises(services.TournamentError):
        services.tournament_cancel(tournament_id=tournament.pk, reason="again", staff_user=staff)
    call_command("ledger_check")


@pytest.mark.django_db
def test_a_player_the_server_played_for_waits_away_until_he_comes_back():
    clock = Clock()
    tournament = arena(clock)
    players = [create_player(balance=BALANCE) for _ in range(5)]
    users = {user.pk: user for user in players}
    for user in players:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    services.tournaments_tick(now=clock.advance(minutes=1))
    [first] = TournamentGame.objects.filter(tournament=tournament).select_related("game")
    dozing = users[first.game.players[0]]
    # He never moves: the server plays for him when his time is up (the disconnect charter).
    play_out(first.game, users, idle={dozing.pk})
    assert Seat.objects.get(table_id=first.game.table_id, user=dozing).away
    entry = Entry.objects.get(tournament=tournament, user=dozing)
    assert entry.status == Entry.Status.AWAY
    services.tournaments_tick(now=clock.advance(seconds=30))
    seated = {
        user_id
        for tg in TournamentGame.objects.filter(tournament=tournament, finished=False)
        for user_id in tg.game.players
    }
    assert dozing.pk not in seated and len(seated) == 4
    services.arena_back(tournament_id=tournament.pk, user=dozing, now=clock.now)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WAITING
    with pytest.raises(services.TournamentError) as refused:
        services.arena_back(tournament_id=tournament.pk, user=dozing, now=clock.now)
    assert refused.value.code == "not_away"
