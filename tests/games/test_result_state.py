"""What the table state says of a finished game: each player's net, his rating after the game
and its change, and what a rematch costs; the same live and after a reload."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Rating
from games.rating import MODEL, display_rating
from games.selectors import tables
from tests.games.conftest import STAKE, TableClient, create_player
from tests.games.test_practice import practice_game, step
from tests.games.test_services import play_out
from tests.games.test_sockets import open_table, play_through_sockets

db = database_sync_to_async


def shown_rating(user) -> int:
    rating = Rating.objects.get(user=user)
    return display_rating(rating.mu, rating.sigma)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_rated_result_carries_nets_rating_changes_and_the_ratings_left_at_the_table(
    snapshots, fast_clients
):
    veteran, rival, newcomer = [await db(create_player)() for _ in range(3)]
    first = await open_table([veteran, rival], 2)
    game = await db(lambda: tables.table_current_game(table=first))()
    await db(play_out)(game, [veteran, rival])
    before = {
        veteran.pk: await db(shown_rating)(veteran),
        newcomer.pk: display_rating(MODEL.mu, MODEL.sigma),
    }

    table = await open_table([veteran, newcomer], 2)
    clients = [TableClient(user, table.pk, snapshots) for user in (veteran, newcomer)]
    for client in clients:
        await client.connect()
    game = await play_through_sockets(table, clients)

    live = clients[0].state
    result = live["result"]
    assert result["stake"] == STAKE
    users = {0: veteran, 1: newcomer}
    for payout in result["payouts"]:
        user = users[payout["seat"]]
        after = await db(shown_rating)(user)
        assert payout["net"] == payout["amount"] - STAKE
        assert payout["rating"] == after
        assert payout["rating_change"] == after - before[user.pk]
    assert sum(payout["net"] for payout in result["payouts"]) == -(result["commission"] or 0)
    # The plaques show the ratings the game left, not those it started with.
    assert {player["seat"]: player["rating"] for player in live["players"]} == {
        payout["seat"]: payout["rating"] for payout in result["payouts"]
    }
    # A reload reads the same result and ratings back from the database.
    reloaded = await db(tables.table_state_for)(table=table, user=newcomer)
    assert reloaded["result"] == result
    assert reloaded["players"] == [
        {**player, "connected": reloaded["players"][index]["connected"]}
        for index, player in enumerate(live["players"])
    ]
    for client in clients:
        await client.close()


@pytest.mark.django_db
def test_a_practice_result_has_no_money_and_no_rating():
    game, user = practice_game(players=3)
    while game.status == game.Status.PLAYING:
        step(game, user)
        game.refresh_from_db()
    state = tables.table_state_for(table=game.table, user=user)
    assert state["result"]["stake"] == 0
    for payout in state["result"]["payouts"]:
        assert (payout["amount"], payout["net"]) == (0, 0)
        assert (payout["rating"], payout["rating_change"]) == (None, None)
    assert all(player["rating"] is None for player in state["players"])
