"""A whole Sit & Go of 16 played by bots, and the race for its last seat."""

from __future__ import annotations

import threading
from collections import defaultdict
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from durak_site.accounts.closure import AccountClosureRefused, account_close
from durak_site.web.client_source import Client
from games.models import BankDistribution
from games.selectors import fairplay
from games.selectors.replay import verify_game
from tests.players import create_player
from tests.tournaments.conftest import play_out, play_running
from tournaments import selectors, services
from tournaments.models import Entry, Kind, Tournament, TournamentGame
from tournaments.services import TournamentError
from wallet import limits
from wallet import services as wallet_services
from wallet.selectors import user_balance

BALANCE = 100_000
BUY_IN, FEE = 10_000, 1_000


def sit_and_go(seats: int, **fields) -> Tournament:
    values = {
        "name": "SNG",
        "kind": Kind.SIT_AND_GO,
        "seats": seats,
        "buy_in": BUY_IN,
        "fee": FEE,
        "prize_percentages": [50, 30, 20],
        **fields,
    }
    return Tournament.objects.create(**values)


def house_balance() -> int:
    return wallet_services.house_account().balance


@pytest.mark.django_db
def test_a_sit_and_go_of_16_knocks_out_each_tables_durak_and_pays_the_final_table():
    tournament = sit_and_go(16)
    players = [create_player(balance=BALANCE) for _ in range(16)]
    users = {user.pk: user for user in players}
    house_before = house_balance()
    for user in players[:15]:
        services.tournament_register(tournament_id=tournament.pk, user=user)
        assert user_balance(user=user) == BALANCE - BUY_IN - FEE
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING
    services.tournament_register(tournament_id=tournament.pk, user=players[15])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING

    rounds = 0
    while play_running(tournament, users):
        rounds += 1
        tournament.refresh_from_db()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    # The standings recomputed from the games' recorded places alone.
    games = list(TournamentGame.objects.filter(tournament=tournament).order_by("pk"))
    by_round = defaultdict(list)
    for tournament_game in games:
        by_round[tournament_game.round].append(tournament_game.game)
    still_in = set(users)
    out_round: dict[int, int] = {}
    final_places: dict[int, int] = {}
    for number in sorted(by_round):
        round_games = by_round[number]
        seated = {user_id for game in round_games for user_id in game.players}
        assert seated == still_in, "every player still in sits in each round, once"
        assert all(len(game.players) <= 4 for game in round_games)
        for game in round_games:
            places = {row.user_id: row.place for row in BankDistribution.objects.filter(game=game)}
            if len(round_games) == 1:
                final_places = places
                continue
            last = max(places.values())
            losers = {user_id for user_id, place in places.items() if place == last}
            if len(losers) < len(places):
                for user_id in losers:
                    out_round[user_id] = number
                    still_in.discard(user_id)
    assert len(by_round) == rounds >= 4
    assert set(final_places) == still_in and len(still_in) <= 4

    # Prizes: 50/30/20 of the pool by final place, each rounded down, a shared place sharing
    # its places' prizes equally (rounded down), what is left to first.
    pool = 16 * BUY_IN
    entries = {entry.user_id: entry for entry in Entry.objects.filter(tournament=tournament)}
    percents = [50, 30, 20, 0]
    expected = dict.fromkeys(users, 0)
    for place in sorted(set(final_places.values())):
        sharing = [user_id for user_id, p in final_places.items() if p == place]
        total = sum(
            pool * percent // 100 for percent in percents[place - 1 : place - 1 + len(sharing)]
        )
        for user_id in sharing:
            expected[user_id] = total // len(sharing)
            assert entries[user_id].place == place
    first = min(final_places, key=lambda user_id: (final_places[user_id], entries[user_id].pk))
    expected[first] += pool - sum(expected.values())
    for user_id, user in users.items():
        assert entries[user_id].prize == expected[user_id]
        assert user_balance(user=user) == BALANCE - BUY_IN - FEE + expected[user_id]
        if user_id not in final_places:
            assert entries[user_id].place > len(final_places)
            assert entries[user_id].out_round == out_round[user_id]
    assert sum(entry.prize for entry in entries.values()) == pool
    assert house_balance() - house_before == 16 * FEE
    assert wallet_services.tournament_pool(tournament.pk).balance == 0
    for tournament_game in games:
        assert verify_game(tournament_game.game) == []
    call_command("ledger_check")


@pytest.mark.django_db
def test_unregistering_before_the_start_returns_the_entry_and_the_seat():
    tournament = sit_and_go(4)
    user = create_player(balance=BALANCE)
    entry = services.tournament_register(tournament_id=tournament.pk, user=user)
    with pytest.raises(TournamentError) as refused:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    assert refused.value.code == "already_registered"
    services.tournament_unregister(tournament_id=tournament.pk, user=user)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN and entry.refund_id is not None
    assert user_balance(user=user) == BALANCE
    again = services.tournament_register(tournament_id=tournament.pk, user=user)
    assert again.pk != entry.pk and user_balance(user=user) == BALANCE - BUY_IN - FEE
    call_command("ledger_check")


@pytest.mark.django_db
def test_registration_needs_the_money_and_refuses_what_a_stake_table_refuses():
    tournament = sit_and_go(4)
    poor = create_player(balance=BUY_IN)
    with pytest.raises(TournamentError) as refused:
        services.tournament_register(tournament_id=tournament.pk, user=poor)
    assert refused.value.code == "insufficient_funds"
    resting = create_player(balance=BALANCE)
    limits.break_start(user=resting, length="24h")
    with pytest.raises(TournamentError) as refused:
        services.tournament_register(tournament_id=tournament.pk, user=resting)
    assert refused.value.code == "self_excluded"
    assert not Entry.objects.filter(tournament=tournament).exists()
    assert user_balance(user=poor) == BUY_IN and user_balance(user=resting) == BALANCE


@pytest.mark.django_db(transaction=True)
def test_fifty_players_racing_for_the_last_seat_give_exactly_one_entry():
    tournament = sit_and_go(4, table_size=4)
    first = [create_player(balance=BALANCE) for _ in range(3)]
    for user in first:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    racers = [create_player(balance=BALANCE) for _ in range(50)]
    start = threading.Barrier(len(racers))
    outcomes: dict[int, str] = {}

    def race(user) -> None:
        try:
            start.wait()
            services.tournament_register(tournament_id=tournament.pk, user=user)
            outcomes[user.pk] = "registered"
        except TournamentError as error:
            outcomes[user.pk] = error.code
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(user,)) for user in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    winners = [pk for pk, outcome in outcomes.items() if outcome == "registered"]
    assert len(outcomes) == 50 and len(winners) == 1
    assert set(outcomes.values()) - {"registered"} <= {"tournament_full", "registration_closed"}
    assert Entry.objects.filter(tournament=tournament).count() == 4
    for user in racers:
        paid = BUY_IN + FEE if user.pk in winners else 0
        assert user_balance(user=user) == BALANCE - paid
    assert wallet_services.tournament_pool(tournament.pk).balance == 4 * (BUY_IN + FEE)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    call_command("ledger_check")


@pytest.mark.django_db
def test_players_registered_from_one_address_who_meet_at_a_tournament_table_are_flagged():
    tournament = sit_and_go(4)
    players = [create_player(balance=BALANCE) for _ in range(4)]
    home = Client("203.0.113.7", "b" * 22, "agent")
    for index, user in enumerate(players):
        client = home if index < 2 else Client(f"198.51.100.{index}", f"{index}" * 22, "x")
        services.tournament_register(tournament_id=tournament.pk, user=user, client=client)
    today = timezone.localdate()
    report = fairplay.fair_play_report(since=today - timedelta(days=1), until=today)
    [flag] = report.shared_clients
    assert {flag.first.pk, flag.second.pk} == {players[0].pk, players[1].pk}
    assert flag.same_address and flag.addresses == ["203.0.113.7"]
    game = TournamentGame.objects.get(tournament=tournament).game
    assert flag.table_ids == [game.table_id]


@pytest.mark.django_db
def test_an_account_registered_for_a_tournament_cannot_close_until_it_unregisters():
    tournament = sit_and_go(4, fee=0, buy_in=0, house_prize=1_000)
    user = create_player()
    services.tournament_register(tournament_id=tournament.pk, user=user)
    with pytest.raises(AccountClosureRefused, match="SNG"):
        account_close(user=user)
    services.tournament_unregister(tournament_id=tournament.pk, user=user)
    account_close(user=user)
    user.refresh_from_db()
    assert not user.is_active


@pytest.mark.django_db
def test_during_a_sit_and_go_those_still_in_stand_above_those_knocked_out():
    tournament = sit_and_go(8)
    players = [create_player(balance=BALANCE) for _ in range(8)]
    users = {user.pk: user for user in players}
    for user in players:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    [first_game, *_] = TournamentGame.objects.filter(tournament=tournament)
    play_out(first_game.game, users)
    rows = selectors.standings_rows(tournament)
    statuses = [row["status"] for row in rows]
    knocked_out = statuses.count("out")
    assert knocked_out >= 1 and statuses[-knocked_out:] == ["out"] * knocked_out
    assert [row["place"] for row in rows] == list(range(1, 9))
