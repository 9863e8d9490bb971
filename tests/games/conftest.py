"""Players, sessions and socket clients for the live-table tests (real PostgreSQL and Redis)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from prometheus_client import REGISTRY

from durak_site.asgi import application
from durak_site.celery import app as celery_app
from durak_site.ops import heartbeats
from games import consumers, presence
from games.engine.cards import CODES
from games.models import Game, GameEvent
from games.selectors.replay import replay_game
from games.selectors.tables import STATE_EVENTS
from games.services import play
from tests import players
from tests.players import session_cookie

STAKE = 10_000
OPENING_BALANCE = 100_000
ALL_CARDS = frozenset(CODES)


def metric_value(name: str, **labels: str) -> float:
    """A sample of this process's metrics (those its in-process sockets and services count)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def create_player(*, balance: int = OPENING_BALANCE, nickname: str | None = None):
    return players.create_player(balance=balance, nickname=nickname)


@pytest.fixture(autouse=True)
def fixed_seeds(monkeypatch):
    """Deals from known seeds, so every test plays the same games on every run."""
    numbers = itertools.count(1)
    monkeypatch.setattr(play, "new_seed", lambda: f"{next(numbers):064x}")


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each async test runs its own event loop; the Redis layer's locks belong to one loop."""
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def no_presence_left():
    """Ids restart with each test database; presence counts of earlier runs must not count."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    for key in client.scan_iter(match=presence.table_key("*")):  # and every (table, user)
        client.delete(key)
    client.close()


@pytest.fixture(autouse=True)
def web_serving(_fresh_cache) -> Iterator[heartbeats.Beating]:
    """These tests serve the players themselves (they call the application in-process), so
    they beat as the web tier: the games' clocks run (games.services.clocks). ``stop`` is an
    outage."""
    beating = heartbeats.Beating(heartbeats.WEB)
    yield beating
    beating.stop()


@pytest.fixture(autouse=True, scope="session")
def _no_stale_tasks():
    """Deadline tasks queued by earlier runs of this suite must not reach a test worker."""
    celery_app.control.purge()
    yield
    celery_app.control.purge()


@pytest.fixture
def fast_clients(monkeypatch):
    """Bots move far faster than people; the rate limit has its own test."""
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000.0)
    monkeypatch.setattr(consumers, "USER_RATE_PER_SECOND", 1000.0)


class SecretLeak(AssertionError):
    pass


# Everything a public event may carry (docs/protocol.md); a new field must be added here on
# purpose, after checking that it reveals nothing a seat did not see.
PUBLIC_EVENT_FIELDS = frozenset({"version", "bout", "seat", "action", "automatic", "lead"})
# Everything a chat frame may carry, likewise.
CHAT_FIELDS = frozenset({"type", "table", "id", "nickname", "text", "phrase", "at"})


class Snapshots:
    """The server's full engine state at each version, to check what a client was shown."""

    def __init__(self) -> None:
        self._games: dict[int, list] = {}

    def at(self, game_id: int, version: int):
        snapshots = self._games.get(game_id)
        if snapshots is None or len(snapshots) <= version:
            snapshots = replay_game(Game.objects.get(pk=game_id))
            self._games[game_id] = snapshots
        return snapshots[version]

    def played(self, game_id: int, version: int) -> set[str]:
        """Every card put on the table by the moves up to `version`: all seats saw them."""
        cards: set[str] = set()
        for action in GameEvent.objects.filter(game_id=game_id, version__lte=version).values_list(
            "action", flat=True
        ):
            cards.update(action.get("cards", []))
            cards.update(action[name] for name in ("attack", "card") if name in action)
        return cards


def hidden_cards(engine, seat: int | None, played: set[str] = frozenset()) -> set[str]:
    """Cards the seat must not see: not in its hand, never played, not on the table, not trump.

    A card once played stays public when it is later taken into a hand or goes to the discard.
    """
    state = engine.to_dict()
    visible = set(played)
    visible |= {pair["attack"] for pair in state["table"]}
    visible |= {pair["defense"] for pair in state["table"] if pair["defense"]}
    visible.add(state["trump_card"])
    if seat is not None:
        visible |= set(state["hands"][seat])
    return ALL_CARDS - visible


def strings_in(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


class TableClient:
    """One browser tab on the table socket; checks every state frame for leaked cards."""

    def __init__(
        self,
        user,
        table_id: int,
        snapshots: Snapshots,
        headers: tuple = (),
        address: str | None = None,
    ) -> None:
        self.user = user
        self.headers, self.address = list(headers), address
        self.table_id = table_id
        self.snapshots = snapshots
        self.communicator: WebsocketCommunicator | None = None
        self.state: dict | None = None
        self.errors: list[dict] = []
        self.frames = 0
        self.chat_history: dict | None = None
        self.session_key: str | None = None

    async def connect(self) -> dict:
        cookie = await database_sync_to_async(session_cookie)(self.user)
        self.session_key = cookie.split("=", 1)[1]
        # One cookie header, as a browser sends: the session's and any of the test's own.
        cookies = "; ".join([cookie, *(v.decode() for n, v in self.headers if n == b"cookie")])
        self.communicator = WebsocketCommunicator(
            application,
            f"/ws/table/{self.table_id}/",
            headers=[
                (b"origin", b"http://localhost"),
                (b"host", b"localhost"),
                (b"cookie", cookies.encode()),
                *((name, value) for name, value in self.headers if name != b"cookie"),
            ],
        )
        if self.address is not None:  # as the server takes it from the connection
            self.communicator.scope["client"] = [self.address, 50000]
        connected, _ = await self.communicator.connect(timeout=5)
        assert connected
        return await self.receive("state")

    async def send(self, payload: Any) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        await self.communicator.send_to(text_data=text)

    async def receive(self, wanted: str | None = None, timeout: float = 5) -> dict:
        """The next message (of type `wanted`, skipping others); states are checked for leaks."""
        while True:
            message = json.loads(await self.communicator.receive_from(timeout=timeout))
            self.frames += 1
            if message["type"] == "state":
                await self.check_secrets(message)
                self.state = self.whole(message)
            elif message["type"] in {"chat", "chat_history"}:
                self.check_chat(message)
                if message["type"] == "chat_history":
                    self.chat_history = message
            elif message["type"] == "error":
                self.errors.append(message)
            if wanted is None or message["type"] == wanted:
                return message

    def whole(self, message: dict) -> dict:
        """The state a browser holds after `message`, which may carry only the latest moves:
        those must follow the state held, as the socket promises."""
        if "events_from" not in message:
            return message
        since = message.pop("events_from")
        if not since:
            return message
        held = self.state
        assert held["game"]["id"] == message["game"]["id"] and held["version"] == since, (
            f"{self.user.username} was sent moves after {since} holding {held['version']}"
        )
        return {**message, "events": (held["events"] + message["events"])[-STATE_EVENTS:]}

    async def state_at_least(self, version: int, timeout: float = 5) -> dict:
        while self.state is None or self.state["version"] < version:
            await self.receive("state", timeout=timeout)
        return self.state

    async def check_secrets(self, message: dict) -> None:
        game = message["game"]
        if game is None or game["status"] != "playing":
            return
        engine = await database_sync_to_async(self.snapshots.at)(game["id"], message["version"])
        played = await database_sync_to_async(self.snapshots.played)(game["id"], message["version"])
        hidden = hidden_cards(engine, message["you"], played)
        leaked = hidden & set(strings_in(message))
        if leaked:
            raise SecretLeak(f"{self.user.username} was shown {sorted(leaked)}")
        extra = {key for event in message["events"] for key in event} - PUBLIC_EVENT_FIELDS
        if extra:
            raise SecretLeak(f"{self.user.username} was sent event fields {sorted(extra)}")

    def check_chat(self, message: dict) -> None:
        """A chat frame belongs to this table and carries only the vetted fields."""
        if message["table"] != self.table_id:
            raise SecretLeak(f"{self.user.username} got table {message['table']}'s chat")
        entries = message["messages"] if message["type"] == "chat_history" else [message]
        extra = {key for entry in entries for key in entry} - CHAT_FIELDS
        if extra:
            raise SecretLeak(f"{self.user.username} was sent chat fields {sorted(extra)}")

    async def drain(self) -> None:
        """Read (and check) everything already sent, e.g. presence updates."""
        while not await self.communicator.receive_nothing(timeout=0.2):
            await self.receive()

    async def nothing_more(self) -> None:
        assert await self.communicator.receive_nothing(timeout=0.3)

    async def close(self) -> None:
        await self.communicator.disconnect()


@pytest.fixture
def snapshots() -> Snapshots:
    return Snapshots()
