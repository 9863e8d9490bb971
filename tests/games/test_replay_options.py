"""Replaying a game deals and plays it with the table options stored with it."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine import Game as EngineGame
from games.models import Game
from games.selectors.replay import replay_game
from tests.games.test_services import play_out, seated_game

pytestmark = pytest.mark.django_db

OPTIONS = {"transfer": False, "deck": 24, "throw_in": "neighbours", "limit": "classic"}


def game_with_options(players: int, options: dict) -> tuple[Game, list]:
    """A started game at a table with `options`."""
    game, users = seated_game(players, options=options)
    assert game.options == options
    return game, users


def test_a_game_with_options_replays_and_verifies_with_them():
    game, users = game_with_options(3, OPTIONS)
    game = play_out(game, users)
    assert game.status == Game.Status.FINISHED
    snapshots = replay_game(game)
    assert snapshots[0].to_dict()["options"] == OPTIONS
    assert snapshots[0].to_dict() == EngineGame.new(3, game.seed, OPTIONS).to_dict()
    assert snapshots[-1].to_dict() == game.state
    call_command("verify_game", game.pk)


def test_a_game_whose_recorded_options_were_changed_afterwards_does_not_verify():
    game, users = game_with_options(2, OPTIONS)
    game = play_out(game, users)
    Game.objects.filter(pk=game.pk).update(deck=36)
    with pytest.raises(CommandError):
        call_command("verify_game", game.pk)


def test_a_game_whose_options_were_changed_afterwards_does_not_verify():
    game, users = game_with_options(2, OPTIONS)
    game = play_out(game, users)
    state = dict(game.state, options={**OPTIONS, "deck": 36})
    Game.objects.filter(pk=game.pk).update(state=state)
    with pytest.raises(CommandError):
        call_command("verify_game", game.pk)


def test_a_game_stored_before_table_options_existed_verifies_as_a_default_game():
    game, users = seated_game(2)
    game = play_out(game, users)
    state = dict(game.state)
    del state["options"], state["attack_limit"]
    Game.objects.filter(pk=game.pk).update(state=state)
    call_command("verify_game", game.pk)
