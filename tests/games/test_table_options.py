"""Table options (RULES.md §7) on the platform: stored with the table and its games, dealt by
the engine, replayed and verified, listed in the lobby, chosen in practice and quick play."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from games import services
from games.engine import DEFAULT_PERCENTAGES, split_bank
from games.engine import Game as EngineGame
from games.models import PRACTICE_PLAYER_SEAT, Game, Table
from games.selectors import lobby, tables
from games.selectors.replay import verify_game
from games.services import GameError
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player
from tests.games.test_services import play_out, seated_game
from tests.players import create_staff
from tests.spreadsheets import read_xlsx
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db

PODKIDNOY_24 = {"transfer": False, "deck": 24}
CLASSIC_NEIGHBOURS = {"throw_in": "neighbours", "limit": "classic"}
RANKS_24 = set("9TJQKA")


def dealt_cards(engine: EngineGame) -> set[str]:
    state = engine.to_dict()
    return {card for hand in state["hands"] for card in hand} | set(state["talon"])


def test_a_table_keeps_its_options_and_deals_its_games_with_them():
    game, _users = seated_game(4, options=PODKIDNOY_24)
    table = game.table
    assert table.options == {"transfer": False, "deck": 24, "throw_in": "all", "limit": "zavala"}
    assert game.options == table.options
    engine = EngineGame.from_dict(game.state)
    assert engine.to_dict()["options"] == table.options
    cards = dealt_cards(engine)
    assert len(cards) == 24 and {card[0] for card in cards} == RANKS_24
    assert engine.talon_size == 0  # 4 x 6 cards: the whole deck is dealt
    assert not any(
        action["type"] == "transfer" for seat in range(4) for action in engine.legal_actions(seat)
    )


def test_a_table_without_options_plays_the_default_game():
    game, _users = seated_game(3)
    assert game.options == {"transfer": True, "deck": 36, "throw_in": "all", "limit": "zavala"}
    assert len(dealt_cards(EngineGame.from_dict(game.state))) == 36


@pytest.mark.parametrize(
    ("seats", "options", "code"),
    [
        (5, {"deck": 24}, "deck_too_small"),
        (6, {"deck": 24}, "deck_too_small"),
        (2, {"deck": 32}, "invalid_options"),
        (2, {"deck": "36"}, "invalid_options"),
        (2, {"transfer": "yes"}, "invalid_options"),
        (2, {"throw_in": "left"}, "invalid_options"),
        (2, {"limit": "six"}, "invalid_options"),
        (2, {"jokers": True}, "invalid_options"),
    ],
)
def test_bad_options_are_refused_and_nothing_moves(seats, options, code):
    user = create_player()
    with pytest.raises(GameError) as refused:
        services.table_create(user=user, stake=STAKE, seats=seats, options=options)
    assert refused.value.code == code
    assert not Table.objects.exists()
    assert user_balance(user=user) == OPENING_BALANCE


def test_the_database_keeps_a_24_card_table_to_4_seats():
    table = seated_game(2, options={"deck": 24})[0].table
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(seat_count=5)


def test_a_52_card_game_at_6_seats_finishes_with_the_usual_bank_and_verifies():
    game, users = seated_game(6, options={"deck": 52, **CLASSIC_NEIGHBOURS})
    engine = EngineGame.from_dict(game.state)
    assert len(dealt_cards(engine)) == 52 and engine.talon_size == 52 - 36
    game = play_out(game, users)
    final = EngineGame.from_dict(game.state)
    # The bank split and the places do not depend on the options.
    assert game.percentages == list(DEFAULT_PERCENTAGES[6])
    expected = split_bank(6 * STAKE, final.places, DEFAULT_PERCENTAGES[6])
    assert {share.seat: share.amount for share in game.distribution.all()} == expected
    assert verify_game(game) == []
    call_command("verify_game", game.pk)


def test_verify_game_replays_with_the_stored_options():
    game, users = seated_game(2, options=PODKIDNOY_24)
    game = play_out(game, users)
    assert verify_game(game) == []
    # Told the game had the default options, the replay deals other cards.
    Game.objects.filter(pk=game.pk).update(transfer=True, deck=36)
    game.refresh_from_db()
    problems = verify_game(game)
    assert (
        problems
        and "the stored state differs" in " ".join(problems)
        or any("does not replay" in problem for problem in problems)
    )


def test_a_rematch_keeps_the_tables_options():
    game, users = seated_game(2, options={"deck": 52, "limit": "classic"})
    game = play_out(game, users)
    for user in users:
        services.rematch_confirm(game_id=game.pk, user=user)
    rematch = Game.objects.get(table=game.table, number=2)
    assert rematch.options == game.options
    assert EngineGame.from_dict(rematch.state).to_dict()["options"] == game.options


def test_the_lobby_lists_the_options_and_the_speed():
    user = create_player()
    table = services.table_create(
        user=user, stake=STAKE, seats=2, turn_seconds=15, throw_seconds=5, options=PODKIDNOY_24
    )
    entry = lobby.table_lobby_entry(table_id=table.pk)
    assert entry["options"] == table.options
    assert entry["speed"] == "fast"
    assert lobby.table_list_open() == [entry]


@pytest.mark.parametrize(
    ("turn_seconds", "speed"),
    [(5, "fast"), (15, "fast"), (30, "normal"), (45, "normal"), (60, "slow"), (90, "slow")],
)
def test_a_custom_turn_time_plays_at_the_speed_nearest_it(turn_seconds, speed):
    table = services.table_create(
        user=create_player(), stake=STAKE, seats=2, turn_seconds=turn_seconds
    )
    assert table.speed == speed


def test_quick_play_joins_only_a_table_with_the_chosen_options_or_any():
    host_24, host_36 = create_player(), create_player()
    podkidnoy = services.table_create(user=host_24, stake=STAKE, seats=3, options=PODKIDNOY_24)
    standard = services.table_create(user=host_36, stake=STAKE, seats=3)
    chooser = create_player()
    found = services.quick_play(user=chooser, stake=STAKE, options=PODKIDNOY_24)
    assert found.pk == podkidnoy.pk
    anyone = create_player()
    # Any options: the oldest open table with the stake, which is the podkidnoy one.
    assert services.quick_play(user=anyone, stake=STAKE).pk == podkidnoy.pk
    classic = create_player()
    opened = services.quick_play(user=classic, stake=STAKE, seats=3, options={"limit": "classic"})
    assert opened.pk not in (podkidnoy.pk, standard.pk)
    assert opened.options == {"transfer": True, "deck": 36, "throw_in": "all", "limit": "classic"}


def test_practice_deals_with_the_chosen_options():
    user = create_player(balance=0)
    table = services.practice_start(user=user, players=3, level="novice", options=PODKIDNOY_24)
    game = Game.objects.get(table=table)
    assert game.options["deck"] == 24 and game.options["transfer"] is False
    assert {card[0] for card in dealt_cards(EngineGame.from_dict(game.state))} == RANKS_24
    with pytest.raises(GameError) as refused:
        services.practice_start(user=user, players=5, level="novice", options={"deck": 24})
    assert refused.value.code == "deck_too_small"


# --- the lobby's forms ----------------------------------------------------------------------


def test_the_new_table_form_takes_the_options_and_a_speed_preset(client):
    user = create_player()
    client.force_login(user)
    response = client.post(
        reverse("table_create"),
        {
            "stake": "100",
            "seats": "4",
            "transfer": "False",
            "deck": "24",
            "throw_in": "neighbours",
            "limit": "classic",
            "speed": "fast",
            "turn_seconds": "60",
            "throw_seconds": "20",
        },
    )
    table = Table.objects.get(created_by=user)
    assert response["Location"] == reverse("table_detail", args=[table.pk])
    assert table.options == {
        "transfer": False,
        "deck": 24,
        "throw_in": "neighbours",
        "limit": "classic",
    }
    assert (table.turn_seconds, table.throw_seconds) == (15, 5)


def test_a_custom_speed_keeps_the_chosen_times(client):
    user = create_player()
    client.force_login(user)
    client.post(
        reverse("table_create"),
        {"stake": "100", "seats": "2", "speed": "", "turn_seconds": "45", "throw_seconds": "15"},
    )
    table = Table.objects.get(created_by=user)
    assert (table.turn_seconds, table.throw_seconds) == (45, 15)
    assert table.options["deck"] == 36


def test_a_24_card_table_for_5_is_refused_with_a_clear_error(client):
    user = create_player()
    client.force_login(user)
    response = client.post(
        reverse("table_create"),
        {
            "stake": "100",
            "seats": "5",
            "deck": "24",
            "speed": "normal",
            "turn_seconds": "30",
            "throw_seconds": "10",
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400
    assert "A deck of 24 cards is for at most 4 players." in response.content.decode()
    assert not Table.objects.exists()
    assert user_balance(user=user) == OPENING_BALANCE


def test_the_lobby_forms_start_from_the_options_chosen_last(client):
    user = create_player()
    client.force_login(user)
    client.post(
        reverse("practice_start"),
        {"seats": "2", "level": "novice", **{"deck": "52", "limit": "classic"}},
    )
    page = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="en")
    form = page.context["form"]
    assert (form["deck"].value(), form["limit"].value()) == (52, "classic")
    assert "52 cards" in page.context["quick_form"].fields["rules"].choices[0][1]
    # Quick play "as I chose last" looks for a 52-card classic table and opens one.
    client.post(reverse("quick_play"), {"stake": "100", "seats": "2", "rules": "last"})
    opened = Table.objects.filter(created_by=user, practice=False).get()
    assert (opened.deck, opened.limit) == (52, "classic")


def test_a_practice_player_sees_the_options_in_his_table_state():
    user = create_player(balance=0)
    table = services.practice_start(user=user, players=2, level="novice", options={"deck": 52})
    state = tables.table_state_for(table=table, user=user)
    assert state["table"]["options"]["deck"] == 52
    assert state["view"]["options"]["deck"] == 52
    assert len(state["view"]["hand"]) == 6 and state["you"] == PRACTICE_PLAYER_SEAT


# --- staff ------------------------------------------------------------------------------------


def test_staff_see_and_filter_the_options_and_export_them_with_every_game(client):
    client.force_login(create_staff(nickname="croupier"))
    podkidnoy, users = seated_game(2, options=PODKIDNOY_24)
    play_out(podkidnoy, users)
    standard, _users = seated_game(2)
    changelist = reverse("admin:games_game_changelist")
    filtered = client.get(changelist + "?deck__exact=24&transfer__exact=0")
    assert [game.pk for game in filtered.context["cl"].result_list] == [podkidnoy.pk]
    tables = client.get(reverse("admin:games_table_changelist") + "?deck__exact=36")
    assert [table.pk for table in tables.context["cl"].result_list] == [standard.table_id]
    page = client.get(reverse("admin:games_game_change", args=[podkidnoy.pk]))
    assert "24 карты, от 9 до туза" in page.content.decode()
    export = reverse("admin:games_game_export")
    games = read_xlsx(client.post(export, {"format": "0", "resource": "0"}))
    by_id = {row["№ игры"]: row for row in games.rows}
    assert (by_id[podkidnoy.pk]["Игра"], by_id[podkidnoy.pk]["Колода, карт"]) == ("подкидной", 24)
    assert by_id[standard.pk]["Лимит"] == "до завала"
    payouts = read_xlsx(client.post(export, {"format": "0", "resource": "1"}))
    assert {row["Колода, карт"] for row in payouts.rows} == {24}


def test_practice_again_deals_with_the_same_options(client):
    user = create_player(balance=0)
    client.force_login(user)
    chosen = {"transfer": "False", "deck": "52", "throw_in": "neighbours", "limit": "classic"}
    client.post(reverse("practice_start"), {"seats": "3", "level": "master", **chosen})
    first = Table.objects.get(created_by=user)
    page = client.get(reverse("table_detail", args=[first.pk])).content.decode()
    again = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page))
    assert {name: again[name] for name in chosen} == chosen
    client.post(
        reverse("practice_start"), {name: again[name] for name in ["seats", "level", *chosen]}
    )
    second = Table.objects.filter(created_by=user).exclude(pk=first.pk).get()
    assert (
        second.options
        == first.options
        == {
            "transfer": False,
            "deck": 52,
            "throw_in": "neighbours",
            "limit": "classic",
        }
    )
    game = Game.objects.get(table=first)
    detail = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert "подкидной · 52 карты, от 2 до туза" in detail
