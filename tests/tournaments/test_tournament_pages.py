"""The tournaments' pages and socket, in process against the real database and Redis."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import timezone

from durak_site.asgi import application
from tests.players import create_player, session_cookie
from tournaments import services
from tournaments.models import Entry, Kind, Tournament
from wallet.selectors import user_balance

SAME_ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
db = database_sync_to_async


def make_arena(**fields) -> Tournament:
    values = {
        "name": "Вечерняя арена",
        "kind": Kind.ARENA,
        "starts_at": timezone.now() + timedelta(minutes=30),
        "minutes": 30,
        "buy_in": 10_000,
        "fee": 1_000,
        "prize_percentages": [50, 30, 20],
        **fields,
    }
    return Tournament.objects.create(**values)


@pytest.mark.django_db
def test_the_list_shows_upcoming_running_and_finished_tournaments(client):
    upcoming = make_arena()
    running = make_arena(name="Идёт", status=Tournament.Status.RUNNING)
    page = client.get(reverse("tournaments")).content.decode()
    assert upcoming.name in page and running.name in page
    assert page.index(upcoming.name) < page.index(running.name)


@pytest.mark.django_db
def test_a_player_registers_and_unregisters_from_the_page(client):
    tournament = make_arena()
    user = create_player(balance=50_000)
    client.force_login(user)
    detail = reverse("tournament_detail", args=[tournament.pk])
    assert 'data-testid="register"' in client.get(detail).content.decode()
    client.post(reverse("tournament_command", args=[tournament.pk, "register"]))
    assert user_balance(user=user) == 39_000
    page = client.get(detail).content.decode()
    assert 'data-testid="unregister"' in page and user.username in page
    client.post(reverse("tournament_command", args=[tournament.pk, "unregister"]))
    assert user_balance(user=user) == 50_000
    assert Entry.objects.get(user=user).status == Entry.Status.WITHDRAWN


@pytest.mark.django_db
def test_a_refused_registration_says_why_and_changes_nothing(client):
    tournament = make_arena()
    user = create_player(balance=500)
    client.force_login(user)
    response = client.post(
        reverse("tournament_command", args=[tournament.pk, "register"]), follow=True
    )
    assert "Not enough money" in response.content.decode() or "Недостаточно" in (
        response.content.decode()
    )
    assert not Entry.objects.exists() and user_balance(user=user) == 500


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_socket_sends_the_standings_and_each_change():
    tournament = await db(make_arena)()
    watcher, player = (
        await db(create_player)(balance=50_000),
        await db(create_player)(balance=50_000),
    )
    cookie = (await db(session_cookie)(watcher)).encode()
    socket = WebsocketCommunicator(
        application,
        f"/ws/tournament/{tournament.pk}/",
        headers=[*SAME_ORIGIN, (b"cookie", cookie)],
    )
    assert (await socket.connect())[0]
    first = await socket.receive_json_from(timeout=5)
    assert (first["type"], first["rows"], first["table"]) == ("state", [], None)
    await db(services.tournament_register)(tournament_id=tournament.pk, user=player)
    changed = await socket.receive_json_from(timeout=5)
    assert [row["nickname"] for row in changed["rows"]] == [player.username]
    await socket.disconnect()


@pytest.mark.django_db
def test_the_profile_shows_medals_best_place_and_history(client):
    user = create_player()
    for place in (1, 1, 3):
        tournament = make_arena(status=Tournament.Status.FINISHED, name=f"Кубок {place}")
        Entry.objects.create(
            tournament=tournament, user=user, status=Entry.Status.DONE, place=place, prize=100
        )
    page = client.get(reverse("profile", args=[user.username])).content.decode()
    assert "🥇 × 2" in page and "🥉 × 1" in page and "🥈 ×" not in page
    assert page.count('href="/tournaments/') >= 3
