"""Practice tables over the real sockets: the player's frames never show a bot's cards, and a
bot decides from nothing but its own seat's view and the public move log."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command

from games import services
from games.engine import Game as EngineGame
from games.engine.bots import choose_action
from games.models import PRACTICE_PLAYER_SEAT, Game, GameEvent
from games.services import practice
from tests.games.conftest import TableClient, create_player, hidden_cards, strings_in

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

db = database_sync_to_async


@pytest.fixture
def bot_inputs(monkeypatch):
    """Every (view, log) a bot decided from."""
    seen: list[tuple[dict, list]] = []
    decide = practice.decide

    def recording(view, log, level, *args, **kwargs):
        seen.append((view, list(log)))
        return decide(view, log, level, *args, **kwargs)

    monkeypatch.setattr(practice, "decide", recording)
    return seen


@pytest.mark.parametrize("players", [2, 4])
async def test_a_practice_game_sends_the_player_no_card_of_a_bot_and_bots_see_only_their_seat(
    players, snapshots, bot_inputs
):
    user = await db(create_player)()
    table = await db(services.practice_start)(user=user, players=players, level="amateur")
    client = TableClient(user, table.pk, snapshots)
    await client.connect()
    assert client.state["you"] == PRACTICE_PLAYER_SEAT and client.state["table"]["practice"]
    assert "invite_code" not in client.state["table"]
    for _step in range(5000):
        game = await db(Game.objects.get)(table=table)
        await client.state_at_least(game.version)
        if game.status != Game.Status.PLAYING:
            break
        engine = EngineGame.from_dict(game.state)
        if PRACTICE_PLAYER_SEAT in engine.waiting_for:
            action = choose_action(engine, PRACTICE_PLAYER_SEAT)
            await client.send({"type": "act", "action": action, "version": game.version})
        else:
            # What the Celery task does after its delay, here at once.
            assert await db(services.bot_play)(game_id=game.pk, version=game.version)
        await client.state_at_least(game.version + 1)
    assert game.status == Game.Status.FINISHED
    assert client.errors == []
    assert bot_inputs

    @db
    def check_bot_inputs() -> None:
        game_id = game.pk
        for view, log in bot_inputs:
            seat, version = view["seat"], len(log)
            engine = snapshots.at(game_id, version)
            hidden = hidden_cards(engine, seat, snapshots.played(game_id, version))
            assert not hidden & set(strings_in(view)) and not hidden & set(strings_in(log))
            assert view == engine.view(seat)
            public = GameEvent.objects.filter(game_id=game_id, version__lte=version)
            assert log == list(public.order_by("version").values("bout", "seat", "action"))

    await check_bot_inputs()
    await db(call_command)("ledger_check")
    await db(call_command)("verify_game", game.pk)
    await client.close()
