"""The table state's event log: the whole game's public moves, capped to the latest ones."""

from __future__ import annotations

import pytest

from games.engine import Game as EngineGame
from games.models import Game, GameEvent
from games.selectors import stats, tables
from games.selectors.replay import replay_game
from tests.games.test_services import bot_move, seated_game

pytestmark = pytest.mark.django_db


def play_bouts(game: Game, users: list, bouts: int) -> Game:
    while EngineGame.from_dict(game.state).bouts < bouts:
        bot_move(game, users)
        game.refresh_from_db()
        assert game.status == Game.Status.PLAYING
    return game


def test_after_a_reload_the_state_holds_every_earlier_bout_of_the_game():
    game, users = seated_game(3)
    game = play_bouts(game, users, 3)
    recorded = list(GameEvent.objects.filter(game=game).order_by("version"))
    for user in [*users, None]:
        events = tables.table_state_for(table=game.table, user=user)["events"]
        assert [event["version"] for event in events] == list(range(1, game.version + 1))
        assert [(event["bout"], event["seat"], event["action"]) for event in events] == [
            (event.bout, event.seat, event.action) for event in recorded
        ]
        assert {event["bout"] for event in events} >= {0, 1, 2}


def test_the_state_carries_only_the_latest_moves_of_a_long_game(monkeypatch):
    game, users = seated_game(2)
    game = play_bouts(game, users, 2)
    monkeypatch.setattr(tables, "STATE_EVENTS", 3)
    events = tables.table_state_for(table=game.table, user=users[0])["events"]
    assert [event["version"] for event in events] == [
        game.version - 2,
        game.version - 1,
        game.version,
    ]


def led_bout(game: Game) -> dict[int, bool]:
    """For each move, by version: was it a lead, an attack on an empty table? From the engine."""
    before = replay_game(game)  # the position before move `version` is at index version - 1
    return {
        event.version: event.action["type"] == "attack"
        and not before[event.version - 1].view(None)["table"]
        for event in GameEvent.objects.filter(game=game)
    }


def test_each_move_shown_says_whether_it_led_its_bout_even_when_the_log_starts_mid_bout(
    monkeypatch,
):
    game, users = seated_game(3)
    game = play_bouts(game, users, 4)
    truth = led_bout(game)
    assert any(truth.values()) and not all(truth.values())
    first_shown_throw_ins = 0
    for shown in range(1, game.version + 1):
        monkeypatch.setattr(tables, "STATE_EVENTS", shown)
        events = tables.table_state_for(table=game.table, user=None)["events"]
        assert [event["version"] for event in events] == list(
            range(game.version - shown + 1, game.version + 1)
        )
        assert [event["lead"] for event in events] == [truth[event["version"]] for event in events]
        first = events[0]
        first_shown_throw_ins += first["action"]["type"] == "attack" and not first["lead"]
    assert first_shown_throw_ins  # some cut fell just before a throw-in, the case that matters

    steps = stats.game_replay(game=game)["steps"]
    assert [step["event"]["lead"] for step in steps[1:]] == [
        truth[version] for version in range(1, game.version + 1)
    ]
