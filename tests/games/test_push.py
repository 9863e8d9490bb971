"""Pushes to players' devices, sent to a local push service that speaks the Web Push protocol
(RFC 8030) in place of a browser vendor's: it checks each request's VAPID signature (RFC 8292)
and answers 201, or 410 for a subscription it has dropped. Each device is a real key pair made
here, and every payload is decrypted with it (RFC 8291)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import threading
import time
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client

from durak_site.accounts import relations
from durak_site.accounts.closure import account_close
from durak_site.push import vapid
from durak_site.push.models import PushSubscription
from durak_site.sockets.db_threads import database_sync_to_async
from games import consumers, services, tasks
from games.effects import PlayerNotice
from games.engine import Game as EngineGame
from games.models import Game
from games.services import notices
from tests import servers
from tests.games.conftest import STAKE, TableClient, create_player
from tests.games.test_services import bot_move, play_out, seated_game
from tests.players import create_player as create_any_player
from wallet import tasks as wallet_tasks
from wallet import withdrawals

SUBJECT = "mailto:push-test@example.com"


def b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class PushRequest:
    device: str
    ttl: int
    topic: str | None
    urgency: str | None
    body: bytes


class PushService:
    """The push service: records what it is sent, refuses a bad VAPID signature with 401."""

    def __init__(self, public_key: str) -> None:
        self.public_key = public_key
        self.requests: list[PushRequest] = []
        self.arrived = threading.Condition()
        self.refused: list[str] = []
        self.gone: set[str] = set()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                device = self.path.rsplit("/", 1)[1]
                problem = service.vapid_problem(self.headers.get("Authorization", ""))
                if problem:
                    service.refused.append(problem)
                    self.send_response(401)
                elif device in service.gone:
                    self.send_response(410)
                else:
                    with service.arrived:
                        service.requests.append(
                            PushRequest(
                                device,
                                int(self.headers["TTL"]),
                                self.headers.get("Topic"),
                                self.headers.get("Urgency"),
                                body,
                            )
                        )
                        service.arrived.notify_all()
                    self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def endpoint(self, device: str) -> str:
        return f"{self.origin}/push/{device}"

    def vapid_problem(self, header: str) -> str | None:
        """What is wrong with an ``Authorization: vapid t=…, k=…`` header, or None."""
        if not header.startswith("vapid "):
            return "no vapid scheme"
        fields = dict(part.strip().split("=", 1) for part in header[6:].split(","))
        if fields.get("k") != self.public_key:
            return "another key"
        signed, _, signature = fields["t"].rpartition(".")
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64decode(fields["k"]))
        raw = b64decode(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
        try:
            key.verify(der, signed.encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "bad signature"
        claims = json.loads(b64decode(signed.split(".")[1]))
        if claims["aud"] != self.origin or claims["exp"] < time.time() or claims["sub"] != SUBJECT:
            return f"bad claims {claims}"
        return None

    def wait_for(self, count: int, timeout: float = 20) -> list[PushRequest]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.requests) >= count, timeout)
            return list(self.requests)

    def for_device(self, device: str) -> list[PushRequest]:
        return [request for request in self.requests if request.device == device]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Device:
    """A browser's subscription: its own key pair and authentication secret."""

    def __init__(self, name: str, service: PushService) -> None:
        self.name = name
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        public = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        self.subscription = {
            "endpoint": service.endpoint(name),
            "keys": {"p256dh": vapid.b64url(public), "auth": vapid.b64url(self.auth)},
        }

    def read(self, request: PushRequest) -> dict:
        return json.loads(
            http_ece.decrypt(request.body, private_key=self.key, auth_secret=self.auth)
        )


@pytest.fixture
def push_service(settings):
    private, public = vapid.generate()
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = private, public
    settings.VAPID_SUBJECT = SUBJECT
    settings.PUSH_SERVICE_HOSTS = ["127.0.0.1"]
    service = PushService(public)
    yield service
    service.close()
    assert service.refused == []


def subscribe(user, device: Device, language: str = "ru") -> None:
    """What the page does: post the subscription with the CSRF token, in the page's language."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.cookies["django_language"] = language
    token = client.get("/profile/").cookies["csrftoken"].value
    response = client.post(
        "/push/subscription/",
        json.dumps(device.subscription),
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 201


def run_notices(callbacks) -> list[PlayerNotice]:
    """Run, as the worker would, the push tasks a command queued after its commit."""
    queued = [callback for callback in callbacks if isinstance(callback, PlayerNotice)]
    for notice in queued:
        tasks.notify_players([notice.task_item])
    return queued


@pytest.mark.django_db
def test_subscribing_takes_a_logged_in_player_a_csrf_token_and_a_real_subscription(push_service):
    player = create_player()
    device = Device("phone", push_service)
    anonymous = Client()
    response = anonymous.post("/push/subscription/", "{}", content_type="application/json")
    assert response.status_code == 302  # to the login page

    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    body = json.dumps(device.subscription)
    response = client.post("/push/subscription/", body, content_type="application/json")
    assert response.status_code == 403  # no CSRF token
    token = client.get("/profile/").cookies["csrftoken"].value

    def post(data, method="post"):
        return getattr(client, method)(
            "/push/subscription/",
            json.dumps(data),
            content_type="application/json",
            headers={"X-CSRFToken": token},
        )

    foreign = {**device.subscription, "endpoint": "https://push.attacker.example/x"}
    short_key = {**device.subscription, "keys": {**device.subscription["keys"], "p256dh": "AAAA"}}
    for bad in (foreign, short_key, {"endpoint": device.subscription["endpoint"]}, [1]):
        response = post(bad)
        assert response.status_code == 400 and response.json()["errors"]
    assert not PushSubscription.objects.exists()

    assert post(device.subscription).status_code == 201
    assert post(device.subscription).status_code == 201  # the same device again: one row
    assert list(PushSubscription.objects.values_list("user", "endpoint", "language")) == [
        (player.pk, device.subscription["endpoint"], "ru")
    ]
    # Another player cannot stop this player's device; he can.
    other = Client()
    other.force_login(create_player())
    other.delete("/push/subscription/", json.dumps({"endpoint": device.subscription["endpoint"]}))
    assert PushSubscription.objects.count() == 1
    assert post({"endpoint": device.subscription["endpoint"]}, "delete").status_code == 200
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_one_push_per_turn_that_lives_until_the_deadline_and_replaces_the_tables_last(
    push_service, django_capture_on_commit_callbacks
):
    game, users = seated_game(2, turn_seconds=30)
    phones = [Device(f"phone{index}", push_service) for index in range(2)]
    subscribe(users[0], phones[0], "ru")
    subscribe(users[1], phones[1], "en")
    turns = {0: 0, 1: 0}
    for _move in range(12):
        game.refresh_from_db()
        before = EngineGame.from_dict(game.state).waiting_for
        sent_before = len(push_service.requests)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            bot_move(game, users)
        started = time.time()
        run_notices(callbacks)
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            break
        begun = [s for s in EngineGame.from_dict(game.state).waiting_for if s not in before]
        fresh = push_service.requests[sent_before:]
        # Exactly the players whose turn began, once each.
        assert sorted(request.device for request in fresh) == [f"phone{seat}" for seat in begun]
        for request in fresh:
            seat = int(request.device[-1])
            turns[seat] += 1
            left = game.deadline.timestamp() - started
            assert left - 2 <= request.ttl <= left
            assert request.topic == f"durak-table-{game.table_id}"
            assert request.urgency == "high"
            message = phones[seat].read(request)
            assert message["tag"] == request.topic
            assert message["url"] == f"/table/{game.table_id}/"
            assert message["title"] == ("Ваш ход" if seat == 0 else "Your move")
            assert str(game.table_id) in message["body"]
    assert turns[0] and turns[1]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_no_push_while_the_players_page_of_the_table_is_in_front_of_him(
    push_service, snapshots
):
    game, users = await database_sync_to_async(seated_game)(2, turn_seconds=30)
    phone = Device("phone", push_service)
    await database_sync_to_async(subscribe)(users[1], phone)
    tab = TableClient(users[1], game.table_id, snapshots)
    await tab.connect()

    async def notify() -> int:
        before = len(push_service.requests)
        await database_sync_to_async(tasks.notify_players)(
            [(game.table_id, [users[1].pk], notices.TURN, time.time() + 30, {})]
        )
        return len(push_service.requests) - before

    assert await notify() == 0  # the page is open and shown
    await tab.send({"type": "visibility", "visible": False})
    await tab.send({"type": "ping"})
    await tab.receive("pong")  # the visibility was handled before the ping
    assert await notify() == 1
    await tab.send({"type": "visibility", "visible": True})
    await tab.send({"type": "ping"})
    await tab.receive("pong")
    assert await notify() == 0
    await tab.close()  # the page is closed: nothing shows the table
    await asyncio.gather(*consumers._releases)  # once the socket's cleanup has run
    assert await notify() == 1


@pytest.mark.django_db
def test_a_subscription_its_push_service_dropped_is_deleted(push_service):
    player = create_player()
    phone, laptop = Device("phone", push_service), Device("laptop", push_service)
    subscribe(player, phone)
    subscribe(player, laptop)
    push_service.gone.add("phone")
    tasks.notify_players([(1, [player.pk], notices.TURN, time.time() + 30, {})])
    assert [request.device for request in push_service.requests] == ["laptop"]
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [
        laptop.subscription["endpoint"]
    ]
    # An expired notice is not sent at all.
    tasks.notify_players([(1, [player.pk], notices.TURN, time.time() - 1, {})])
    assert len(push_service.requests) == 1


@pytest.mark.django_db
def test_a_table_starting_and_a_rematch_offered_are_pushed_to_the_others(
    push_service, django_capture_on_commit_callbacks
):
    users = [create_player() for _ in range(2)]
    phones = [Device(f"phone{index}", push_service) for index in range(2)]
    for user, phone in zip(users, phones, strict=True):
        subscribe(user, phone)
    table = services.table_create(user=users[0], stake=STAKE, seats=2)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.table_join(table_id=table.pk, user=users[1])
    run_notices(callbacks)
    started = [phones[int(r.device[-1])].read(r)["title"] for r in push_service.requests]
    assert started == ["Ваш стол начинает игру"] * 2

    game = play_out(Game.objects.get(table=table), users)
    push_service.requests.clear()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.rematch_confirm(game_id=game.pk, user=users[0])
    run_notices(callbacks)
    [offer] = push_service.requests
    assert offer.device == "phone1"
    assert game.rematch_until.timestamp() - time.time() - 2 <= offer.ttl
    message = phones[1].read(offer)
    assert users[0].username in message["body"]
    assert message["tag"] == f"durak-table-{table.pk}"


@pytest.mark.django_db
def test_a_friends_invitation_to_a_private_table_is_pushed_with_its_code(
    push_service, django_capture_on_commit_callbacks
):
    host, friend = create_player(), create_player()
    request = relations.friend_request(user=host, nickname=friend.username)
    relations.friend_accept(user=friend, friendship_id=request.pk)
    phone = Device("phone", push_service)
    subscribe(friend, phone, language="en")
    table = services.table_create(user=host, stake=STAKE, seats=3, private=True)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.friend_invite(user=host, nickname=friend.username, table_id=table.pk)
    run_notices(callbacks)
    [invitation] = push_service.requests
    message = phone.read(invitation)
    assert message["title"] == "An invitation"
    assert message["body"] == f"{host.username} invites you to table #{table.pk}."
    assert message["url"] == f"/table/{table.pk}/?invite={table.invite_code}"


@pytest.mark.django_db
def test_a_paid_withdrawal_is_pushed_with_its_amount_in_the_devices_language(
    push_service, django_capture_on_commit_callbacks
):
    player = create_player(balance=1_000_00)
    staff = create_any_player(is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="approve_withdrawal"))
    staff = type(staff).objects.get(pk=staff.pk)
    phone = Device("phone", push_service)
    subscribe(player, phone, "ru")
    withdrawal = withdrawals.withdrawal_request(
        user=player, amount=250_00, payout_details="card 4276", request_key="push-1"
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        withdrawals.withdrawal_approve(
            withdrawal_id=withdrawal.pk, staff_user=staff, payout_reference="bank-1"
        )
    # The task is queued after the commit.
    assert [callback.func.__name__ for callback in callbacks if isinstance(callback, partial)] == [
        "_send_paid_notice"
    ]
    wallet_tasks.notify_withdrawal_paid(withdrawal.pk)
    [request] = push_service.requests
    message = phone.read(request)
    assert message["title"] == "Вывод средств выплачен"
    assert "250,00 ₽" in message["body"]
    assert message["url"] == "/wallet/"
    assert 24 * 3600 - 60 <= request.ttl <= 24 * 3600


def test_the_key_command_prints_a_pair_whose_public_key_belongs_to_its_private_key():
    output = io.StringIO()
    call_command("vapid_keys", stdout=output)
    pair = dict(line.split("=", 1) for line in output.getvalue().split())
    private = ec.derive_private_key(
        int.from_bytes(b64decode(pair["VAPID_PRIVATE_KEY"])), ec.SECP256R1()
    )
    public = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert vapid.b64url(public) == pair["VAPID_PUBLIC_KEY"]


@pytest.mark.django_db
def test_closing_an_account_forgets_its_devices(push_service):
    player, other = create_any_player(), create_any_player()
    subscribe(player, Device("phone", push_service))
    subscribe(other, Device("tablet", push_service))
    account_close(user=player)
    assert list(PushSubscription.objects.values_list("user", flat=True)) == [other.pk]


@pytest.mark.django_db
def test_without_a_key_pair_the_profile_offers_nothing_and_subscriptions_are_refused(settings):
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    client = Client()
    client.force_login(create_player())
    assert b"data-push-optin" not in client.get("/profile/").content
    response = client.post("/push/subscription/", "{}", content_type="application/json")
    assert response.status_code == 404
    assert not PushSubscription.objects.exists()


@pytest.mark.live
@pytest.mark.django_db(transaction=True)
def test_a_table_starting_and_a_move_reach_the_phones_through_a_real_worker(push_service, settings):
    """The whole way: the command commits, its notices leave through the process's sender
    thread and the broker, and a Celery worker pushes them."""
    worker = servers.celery_worker(
        servers.server_env(
            VAPID_PRIVATE_KEY=settings.VAPID_PRIVATE_KEY,
            VAPID_PUBLIC_KEY=settings.VAPID_PUBLIC_KEY,
            VAPID_SUBJECT=SUBJECT,
            PUSH_SERVICE_HOSTS="127.0.0.1",
        ),
        servers.BASE_DIR / "test-artifacts" / "push-worker.log",
    )
    worker.start()
    try:
        users = [create_player() for _ in range(2)]
        phones = [Device(f"phone{index}", push_service) for index in range(2)]
        for user, phone in zip(users, phones, strict=True):
            subscribe(user, phone)
        table = services.table_create(user=users[0], stake=STAKE, seats=2)
        services.table_join(table_id=table.pk, user=users[1])
        started = push_service.wait_for(2)
        assert sorted(request.device for request in started) == ["phone0", "phone1"]
        game = Game.objects.get(table=table)
        defender = 1 - EngineGame.from_dict(game.state).waiting_for[0]
        bot_move(game, users)
        turn = push_service.wait_for(3)[2]
        assert turn.device == f"phone{defender}"
        assert phones[defender].read(turn)["title"] == "Ваш ход"
        game.refresh_from_db()
        assert game.deadline.timestamp() - time.time() - 5 <= turn.ttl <= 30
    finally:
        worker.close()
