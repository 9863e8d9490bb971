"""Fair-play signals: patterns built on purpose are flagged with their evidence, ordinary play
with random pairings is not; staff block a flagged player from the page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from durak_site.audit.models import StaffAction
from durak_site.web.client_source import Client
from games import services
from games.models import Game, Seat, StakeBlock
from games.selectors import fairplay
from games.services import GameError
from tests.fairplay_patterns import (
    STAKE,
    client_number,
    finish_game,
    ordinary_play,
    play_with_sleeper,
)
from tests.games.conftest import create_player
from tests.players import create_staff
from tests.site.test_admin_language import english_words, labels_of, russian_labels

pytestmark = pytest.mark.django_db

BALANCE = 10_000_000


def report():
    today = timezone.localdate()
    return fairplay.fair_play_report(since=today - timedelta(days=1), until=today)


def test_ordinary_play_with_random_pairings_is_not_flagged():
    players = [create_player(balance=BALANCE) for _ in range(10)]
    ordinary_play(players, games=50)
    found = report()
    assert (found.games, found.players) == (50, 10)
    assert found.pairs == [] and found.shared_clients == [] and found.away == []


@pytest.mark.slow
def test_a_pair_that_keeps_meeting_is_flagged_with_the_money_between_them():
    players = [create_player(balance=BALANCE) for _ in range(10)]
    ordinary_play(players, games=50)
    anna, boris = create_player(balance=BALANCE), create_player(balance=BALANCE)
    together = [finish_game([anna, boris], order=[0, 1]) for _ in range(12)]
    # Each also plays a few ordinary games with the others.
    for number, user in enumerate(players[:6]):
        finish_game([anna if number % 2 else boris, user], order=[1, 0])

    with CaptureQueriesContext(connection) as queries:
        found = report()
    assert len(queries) <= 8
    [pair] = found.pairs
    assert {pair.first, pair.second} == {anna, boris}
    assert pair.shared == 12
    assert (pair.first_games, pair.second_games) == (15, 15)
    # 15 * 15 * (pairs that met) / seats² from the population of the period.
    seats = sum(len(game.players) for game in Game.objects.all())
    meetings = sum(len(game.players) * (len(game.players) - 1) for game in Game.objects.all())
    assert pair.expected == pytest.approx(15 * 15 * meetings / seats**2)
    assert pair.ratio >= fairplay.PAIR_FACTOR and pair.chance < fairplay.PAIR_MAX_CHANCE
    assert sorted(pair.game_ids) == sorted(game.pk for game in together)
    # Anna won every shared game: boris's stakes went to her (no commission here).
    assert (pair.gainer, pair.loser, pair.amount) == (anna, boris, 12 * STAKE)
    nets = {pair.first: pair.first_net, pair.second: pair.second_net}
    assert nets == {anna: 12 * STAKE, boris: -12 * STAKE}


def test_players_at_one_table_from_one_address_or_one_browser_are_flagged():
    carl, dina, eva, fred, gleb, hana = (create_player(balance=BALANCE) for _ in range(6))
    home = Client(address="192.0.2.7", browser_id="c" * 22, user_agent_hash="a" * 16)
    same_home = Client(address="192.0.2.7", browser_id="d" * 22, user_agent_hash="b" * 16)
    shared_game = finish_game([carl, dina], clients=[home, same_home])
    laptop = Client(address="198.51.100.1", browser_id="e" * 22, user_agent_hash="f" * 16)
    laptop_elsewhere = Client(address="203.0.113.9", browser_id="e" * 22, user_agent_hash="f" * 16)
    browser_game = finish_game([eva, fred], clients=[laptop, laptop_elsewhere])
    # One address, but never at one table: not a signal.
    finish_game([gleb, create_player(balance=BALANCE)], clients=[home, client_number(1)])
    finish_game([hana, create_player(balance=BALANCE)], clients=[home, client_number(2)])

    flags = {(flag.first, flag.second): flag for flag in report().shared_clients}
    assert set(flags) == {(carl, dina), (eva, fred)}
    by_address, by_browser = flags[carl, dina], flags[eva, fred]
    assert (by_address.same_address, by_address.same_browser) == (True, False)
    assert by_address.addresses == ["192.0.2.7"]
    assert by_address.game_ids == [shared_game.pk]
    assert by_address.table_ids == [shared_game.table_id]
    assert (by_browser.same_address, by_browser.same_browser, by_browser.same_agent) == (
        False,
        True,
        True,
    )
    assert by_browser.game_ids == [browser_game.pk]


def test_the_seat_records_the_address_and_browser_of_the_request(client):
    host, guest = create_player(balance=BALANCE), create_player(balance=BALANCE)
    table = services.table_create(user=host, stake=STAKE, seats=2)
    client.force_login(guest)
    client.get(reverse("lobby"), HTTP_USER_AGENT="TestBrowser/1.0", REMOTE_ADDR="192.0.2.44")
    browser_id = client.cookies["browser"].value
    client.post(
        reverse("table_join", args=[table.pk]),
        HTTP_USER_AGENT="TestBrowser/1.0",
        REMOTE_ADDR="192.0.2.44",
    )
    seat = Seat.objects.get(table=table, user=guest)
    assert (seat.client_address, seat.browser_id) == ("192.0.2.44", browser_id)
    assert len(seat.user_agent_hash) == 16
    client.force_login(host)  # another player in the same browser
    client.get(reverse("lobby"))
    assert client.cookies["browser"].value == browser_id  # one browser, whoever logs in


@pytest.mark.slow
def test_a_player_the_server_keeps_playing_for_is_flagged_and_the_others_are_not():
    sleeper = create_player(balance=BALANCE)
    others = [create_player(balance=BALANCE) for _ in range(6)]
    sleeper_games = [play_with_sleeper(sleeper, opponent, sleeper).pk for opponent in others[:3]]
    for first, second in [(3, 4), (4, 5), (3, 5), (0, 1)]:
        play_with_sleeper(others[first], others[second])

    found = report()
    [flag] = found.away
    assert flag.user == sleeper and flag.games == 3
    assert flag.share >= fairplay.AWAY_FACTOR * found.away_average
    assert sorted(flag.game_ids) == sorted(sleeper_games)


def test_staff_see_the_evidence_with_links_to_the_games_and_block_from_the_page(client):
    anna, boris = create_player(balance=BALANCE), create_player(balance=BALANCE)
    players = [create_player(balance=BALANCE) for _ in range(8)]
    ordinary_play(players, games=30, seed=7)
    games = [finish_game([anna, boris], order=[1, 0]) for _ in range(8)]
    staff = create_staff(nickname="floorman")
    client.force_login(staff)

    response = client.get(reverse("admin:games_fair_play"), HTTP_ACCEPT_LANGUAGE="ru")
    assert not english_words(labels_of(response)), english_words(labels_of(response))
    english = client.get(reverse("admin:games_fair_play"), HTTP_ACCEPT_LANGUAGE="en")
    assert not russian_labels(labels_of(english)), russian_labels(labels_of(english))
    page = response.content.decode()
    assert page.count('data-testid="fp-pair"') == 1
    for game in games:
        assert reverse("admin:games_game_change", args=[game.pk]) in page
        assert reverse("game_detail", args=[game.pk]) in page
    assert client.get(reverse("game_detail", args=[games[0].pk])).status_code == 200

    until = timezone.localdate() + timedelta(days=14)
    response = client.post(
        reverse("admin:games_fair_play_block"),
        {"user": anna.pk, "reason": "Plays only with boris and always loses", "until": until},
    )
    assert response.status_code == 302
    block = StakeBlock.objects.get(user=anna)
    assert timezone.localtime(block.ends_at).date() == until + timedelta(days=1)
    action = StaffAction.objects.get(action="games.stake_block")
    assert (action.staff, action.player) == (staff, anna)
    with pytest.raises(GameError) as refused:
        services.table_create(user=anna, stake=STAKE, seats=2)
    assert refused.value.code == "stake_blocked"
    assert "Plays only with boris" in client.get(reverse("admin:games_fair_play")).content.decode()

    # A block without a reason changes nothing.
    client.post(reverse("admin:games_fair_play_block"), {"user": boris.pk, "until": until})
    assert not StakeBlock.objects.filter(user=boris).exists()
