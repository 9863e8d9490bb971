"""Friends, blocks, notes, invitations and reliability, on real PostgreSQL and Redis; the
invitation's notice over a real socket."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import translation

from durak_site.accounts import relations
from durak_site.accounts.models import Block, Friendship, PlayerNote
from durak_site.accounts.relations import RelationError
from durak_site.asgi import application
from games import effects, presence, services
from games.effects import PlayerNotice, UserNotice
from games.engine import Game as EngineGame
from games.models import Game, Seat, Table
from games.selectors import lobby
from games.selectors.friends import friends_overview
from games.selectors.reliability import Reliability, player_reliability
from games.services import GameError, chat, notices
from games.services import friends as friend_services
from tests.games.conftest import STAKE, TableClient, create_player
from tests.games.test_services import expire_deadline, play_out, seated_game
from tests.players import session_cookie
from wallet.selectors import user_balance

SAME_ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


def befriend(first, second) -> Friendship:
    request = relations.friend_request(user=first, nickname=second.username)
    return relations.friend_accept(user=second, friendship_id=request.pk)


def state_of_relations() -> tuple:
    return (
        sorted(Friendship.objects.values_list("from_user", "to_user", "status")),
        sorted(Block.objects.values_list("user", "blocked")),
        sorted(PlayerNote.objects.values_list("author", "player", "text", "colour")),
    )


@pytest.mark.django_db
def test_a_request_accepted_makes_friends_and_bad_requests_change_nothing():
    anna, boris, vera = (create_player() for _ in range(3))
    request = relations.friend_request(user=anna, nickname=boris.username.upper())
    assert (request.from_user, request.to_user, request.status) == (anna, boris, "requested")
    before = state_of_relations()
    refusals = [
        (lambda: relations.friend_request(user=anna, nickname="nobody-here"), "no_such_player"),
        (lambda: relations.friend_request(user=anna, nickname=anna.username), "self"),
        (lambda: relations.friend_request(user=anna, nickname=boris.username), "already_asked"),
        (lambda: relations.friend_request(user=anna, nickname=["x"]), "no_such_player"),
        # Only the asked player accepts; forged or foreign ids find nothing.
        (lambda: relations.friend_accept(user=anna, friendship_id=request.pk), "no_such_request"),
        (lambda: relations.friend_accept(user=vera, friendship_id=request.pk), "no_such_request"),
        (lambda: relations.friend_accept(user=boris, friendship_id="1 OR 1"), "no_such_request"),
        (lambda: relations.friend_accept(user=boris, friendship_id=10**30), "no_such_request"),
        (lambda: relations.friendship_end(user=vera, friendship_id=request.pk), "no_such_request"),
    ]
    for refused, code in refusals:
        with pytest.raises(RelationError) as error:
            refused()
        assert error.value.code == code
        assert state_of_relations() == before

    relations.friend_accept(user=boris, friendship_id=str(request.pk))
    with pytest.raises(RelationError) as twice:  # a double click
        relations.friend_accept(user=boris, friendship_id=request.pk)
    assert twice.value.code == "no_such_request"
    assert relations.friend_ids(user=anna) == [boris.pk]
    assert relations.friend_ids(user=boris) == [anna.pk]
    with pytest.raises(RelationError) as again:
        relations.friend_request(user=boris, nickname=anna.username)
    assert again.value.code == "already_friends"

    # Asking someone who asked you first accepts his request: still one row for the pair.
    relations.friend_request(user=vera, nickname=anna.username)
    crossed = relations.friend_request(user=anna, nickname=vera.username)
    assert crossed.status == "accepted"
    assert Friendship.objects.count() == 2

    relations.friendship_end(user=anna, friendship_id=request.pk)
    assert relations.friend_ids(user=anna) == [vera.pk]


@pytest.mark.django_db
def test_a_block_ends_the_friendship_and_bars_requests_invitations_and_chat():
    anna, boris = create_player(), create_player()
    befriend(anna, boris)
    table = services.table_create(user=boris, stake=STAKE, seats=3)
    friend_services.player_block(user=anna, nickname=boris.username)
    assert Friendship.objects.count() == 0
    before = state_of_relations()
    for refused, code in [
        (lambda: relations.block(user=anna, nickname=boris.username), "already_blocked"),
        (lambda: relations.block(user=anna, nickname=anna.username), "self"),
        (lambda: relations.friend_request(user=boris, nickname=anna.username), "blocked"),
        (lambda: relations.friend_request(user=anna, nickname=boris.username), "blocked"),
        (lambda: relations.unblock(user=boris, nickname=anna.username), "not_blocked"),
    ]:
        with pytest.raises(RelationError) as error:
            refused()
        assert error.value.code == code
        assert state_of_relations() == before
    with pytest.raises(GameError) as invite:
        services.friend_invite(user=boris, nickname=anna.username, table_id=table.pk)
    assert invite.value.code == "invite_not_friend"
    # She no longer reads his chat; she does not show among his friends, online or not.
    assert chat.chat_muted_ids(user=anna) == {boris.pk}
    assert chat.chat_muted_ids(user=boris) == set()
    assert friends_overview(user=boris)["friends"] == []
    assert list(friends_overview(user=anna)["blocked"]) == [boris.username]

    friend_services.player_unblock(user=anna, nickname=boris.username)
    assert chat.chat_muted_ids(user=anna) == set()


@pytest.mark.django_db
def test_notes_are_private_coloured_and_checked():
    anna, boris, vera = (create_player() for _ in range(3))
    relations.note_save(user=anna, nickname=boris.username, text="  slow\nplayer ", colour="red")
    assert relations.note_on(author=anna, player_id=boris.pk) == {
        "text": "slow player",
        "colour": "red",
    }
    assert relations.note_on(author=vera, player_id=boris.pk) is None
    before = state_of_relations()
    for text, colour, code in [
        ("x" * 301, "red", "note_too_long"),
        ("fine", "pink", "bad_colour"),
        (None, "red", "note_too_long"),
    ]:
        with pytest.raises(RelationError) as error:
            relations.note_save(user=anna, nickname=boris.username, text=text, colour=colour)
        assert error.value.code == code
    with pytest.raises(RelationError):
        relations.note_save(user=anna, nickname=anna.username, text="me", colour="red")
    assert state_of_relations() == before
    relations.note_save(user=anna, nickname=boris.username, text="   ", colour="grey")
    assert PlayerNote.objects.count() == 0


@pytest.mark.django_db
def test_the_card_and_the_profile_show_a_note_to_its_author_alone(client):
    anna, boris = create_player(), create_player()
    relations.note_save(user=anna, nickname=boris.username, text="colludes", colour="purple")
    card_url = reverse("player_card", args=[boris.username])
    client.force_login(anna)
    card = client.get(card_url).json()
    assert card["note"] == {"text": "colludes", "colour": "purple"}
    assert card["relation"] is None and card["reliability"] is None
    assert "colludes" in client.get(reverse("profile", args=[boris.username])).text
    client.force_login(boris)
    assert client.get(card_url).json()["note"] is None
    client.logout()
    assert client.get(card_url).json()["note"] is None


@pytest.mark.django_db
def test_an_invitation_is_checked_limited_and_queues_a_notice_and_a_push(
    django_capture_on_commit_callbacks, settings
):
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = "private", "public"
    anna, boris, vera = (create_player() for _ in range(3))
    befriend(anna, boris)
    table = services.table_create(user=anna, stake=STAKE, seats=3, private=True)
    other = services.table_create(user=vera, stake=STAKE, seats=2)
    refusals = [
        (vera, boris.username, table.pk, "invite_not_friend"),
        (anna, vera.username, table.pk, "invite_not_friend"),
        (anna, anna.username, table.pk, "self"),
        (anna, boris.username, other.pk, "not_seated"),
        (anna, boris.username, 10**30, "table_not_found"),
        (anna, boris.username, "12", "table_not_found"),
    ]
    for user, nickname, table_id, code in refusals:
        with django_capture_on_commit_callbacks() as callbacks, pytest.raises(GameError) as error:
            services.friend_invite(user=user, nickname=nickname, table_id=table_id)
        assert error.value.code == code
        assert callbacks == []

    with django_capture_on_commit_callbacks() as callbacks:
        services.friend_invite(user=anna, nickname=boris.username, table_id=table.pk)
    notice, push = [c for c in callbacks if type(c).__module__ == effects.__name__]
    assert notice == UserNotice(
        boris.pk,
        {
            "type": "friend.invite",
            "invite": {
                "from": anna.username,
                "table": table.pk,
                "stake": STAKE,
                "seats": 3,
                "invite_code": table.invite_code,
            },
        },
    )
    assert isinstance(push, PlayerNotice)
    assert (push.table_id, push.user_ids, push.kind) == (table.pk, (boris.pk,), notices.INVITE)
    assert dict(push.params) == {"nickname": anna.username, "invite": table.invite_code}

    # The same friend again at once (a double click) is refused; so are invitations in a flood.
    with pytest.raises(GameError) as repeated:
        services.friend_invite(user=anna, nickname=boris.username, table_id=table.pk)
    assert repeated.value.code == "invite_repeated"
    friends = [create_player() for _ in range(int(friend_services.INVITES_BURST))]
    for friend in friends:
        befriend(anna, friend)
    for friend in friends[:-1]:
        services.friend_invite(user=anna, nickname=friend.username, table_id=table.pk)
    with pytest.raises(GameError) as flood:
        services.friend_invite(user=anna, nickname=friends[-1].username, table_id=table.pk)
    assert flood.value.code == "invite_too_fast"

    # A friend who sits there already, or a table that started, takes no invitation.
    services.table_join(table_id=table.pk, user=boris, invite_code=table.invite_code)
    with pytest.raises(GameError) as seated:
        services.friend_invite(user=anna, nickname=boris.username, table_id=table.pk)
    assert seated.value.code == "invite_already_seated"


@pytest.mark.django_db
def test_the_friends_page_shows_who_is_online_and_where(django_assert_num_queries):
    anna, boris, vera = (create_player() for _ in range(3))
    befriend(anna, boris)
    befriend(vera, anna)
    relations.friend_request(user=create_player(nickname="asker"), nickname=anna.username)
    table = services.table_create(user=boris, stake=STAKE, seats=3)
    presence.claim(vera.pk, "vera-lobby", 8)
    with django_assert_num_queries(4):  # however many friends: presence is one Redis round trip
        overview = friends_overview(user=anna)
    assert [(f["nickname"], f["online"], f["table"]) for f in overview["friends"]] == [
        (vera.username, True, None),
        (boris.username, False, {"id": table.pk, "private": False}),
    ]
    assert [entry["nickname"] for entry in overview["incoming"]] == ["asker"]
    assert overview["inviting_tables"] == []
    assert [t.pk for t in friends_overview(user=boris)["inviting_tables"]] == [table.pk]


def time_out_once(game: Game) -> None:
    """Let the current deadline pass: the server moves for whoever the game waits on."""
    game.refresh_from_db()
    expire_deadline(game)
    assert services.game_timeout(game_id=game.pk, version=game.version)


@pytest.mark.django_db(transaction=True)
def test_reliability_counts_games_left_to_the_server_and_tables_may_ask_for_a_minimum(
    django_assert_num_queries,
):
    game, users = seated_game(2)
    play_out(game, users)
    # Their second game: the server leads for the first player to move, whose time ran out.
    second = services.table_create(user=users[0], stake=STAKE, seats=2)
    services.table_join(table_id=second.pk, user=users[1])
    game = Game.objects.get(table=second)
    by_id = {user.pk: user for user in users}
    late = by_id[game.players[EngineGame.from_dict(game.state).waiting_for[0]]]
    clean = next(user for user in users if user != late)
    time_out_once(game)
    play_out(game, users)
    with django_assert_num_queries(1):
        assert player_reliability(user_id=late.pk) == Reliability(counted=2, clean=1)
    assert player_reliability(user_id=late.pk).percent == 50
    assert player_reliability(user_id=clean.pk) == Reliability(counted=2, clean=2)
    assert player_reliability(user_id=create_player().pk).percent is None
    playing = seated_game(2)[1][0]  # in his first game: nothing finished yet
    assert player_reliability(user_id=playing.pk).percent is None

    table = services.table_create(user=create_player(), stake=STAKE, seats=3, min_reliability=80)
    assert lobby.table_lobby_entry(table_id=table.pk)["min_reliability"] == 80
    balance = user_balance(user=late)
    with pytest.raises(GameError) as refused:
        services.table_join(table_id=table.pk, user=late)
    assert refused.value.code == "reliability_too_low"
    with translation.override("en"):
        told = str(refused.value.message)
    assert told == "This table asks for a reliability of at least 80 %; yours is 50 %."
    assert user_balance(user=late) == balance
    assert not Seat.objects.filter(table=table, user=late).exists()
    newcomer = create_player()
    with pytest.raises(GameError) as unknown:
        services.table_join(table_id=table.pk, user=newcomer)
    with translation.override("en"):
        assert str(unknown.value.message).endswith("you have no games with a stake yet.")

    # Quick play passes over a table he may not join and opens one of his own; a player who
    # meets the minimum is seated at the older table.
    quick = services.quick_play(user=late, stake=STAKE, seats=3)
    assert quick.pk != table.pk and quick.min_reliability == 0
    assert services.quick_play(user=clean, stake=STAKE, seats=3).pk == table.pk
    with pytest.raises(GameError) as bad:
        services.table_create(user=clean, stake=STAKE, seats=2, min_reliability=101)
    assert bad.value.code == "invalid_min_reliability"
    assert Table.objects.filter(min_reliability=101).count() == 0


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_invitation_reaches_every_socket_of_the_friend_and_nobody_else(snapshots):
    db = database_sync_to_async
    anna, boris, vera = [await db(create_player)() for _ in range(3)]
    await db(befriend)(anna, boris)
    table = await db(services.table_create)(user=anna, stake=STAKE, seats=3)
    other_table = await db(services.table_create)(user=vera, stake=STAKE, seats=3)

    async def lobby_socket(user) -> WebsocketCommunicator:
        cookie = (await db(session_cookie)(user)).encode()
        socket = WebsocketCommunicator(
            application, "/ws/lobby/", headers=[*SAME_ORIGIN, (b"cookie", cookie)]
        )
        assert (await socket.connect())[0]
        assert json.loads(await socket.receive_from(timeout=5))["type"] == "tables"
        return socket

    boris_lobby, vera_lobby = await lobby_socket(boris), await lobby_socket(vera)
    boris_at_table = TableClient(boris, other_table.pk, snapshots)
    await boris_at_table.connect()
    await boris_at_table.drain()
    await vera_lobby.receive_nothing(timeout=0.3)

    await db(services.friend_invite)(user=anna, nickname=boris.username, table_id=table.pk)
    expected = {
        "type": "invite",
        "from": anna.username,
        "table": table.pk,
        "stake": STAKE,
        "seats": 3,
        "invite_code": "",
    }

    async def next_invite(socket) -> dict:
        while True:
            message = json.loads(await socket.receive_from(timeout=5))
            if message["type"] == "invite":
                return message

    assert await next_invite(boris_lobby) == expected
    assert await boris_at_table.receive("invite") == expected
    assert await vera_lobby.receive_nothing(timeout=0.3)

    # He accepts: the invitation's form sits him down.
    await db(services.table_join)(table_id=table.pk, user=boris)
    assert await db(lambda: Seat.objects.filter(table=table, user=boris).exists())()
    for socket in (boris_lobby, vera_lobby):
        await socket.disconnect()
    await boris_at_table.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_blocked_player_is_not_heard_by_who_blocked_him_from_that_moment(snapshots):
    db = database_sync_to_async
    anna, boris = [await db(create_player)() for _ in range(2)]
    table = await db(services.table_create)(user=anna, stake=STAKE, seats=2)
    await db(services.table_join)(table_id=table.pk, user=boris)
    anna_socket = TableClient(anna, table.pk, snapshots)
    boris_socket = TableClient(boris, table.pk, snapshots)
    for socket in (anna_socket, boris_socket):
        await socket.connect()
    for socket in (anna_socket, boris_socket):
        await socket.drain()

    await db(services.player_block)(user=anna, nickname=boris.username)
    assert (await anna_socket.receive("chat_mutes"))["muted"] == []  # blocked, not muted
    await boris_socket.send({"type": "chat", "text": "unheard"})
    assert (await boris_socket.receive("chat"))["text"] == "unheard"
    await anna_socket.nothing_more()

    await db(services.player_unblock)(user=anna, nickname=boris.username)
    await anna_socket.receive("chat_mutes")
    await boris_socket.send({"type": "chat", "text": "heard again"})
    assert (await anna_socket.receive("chat"))["text"] == "heard again"
    for socket in (anna_socket, boris_socket):
        await socket.close()


@pytest.mark.django_db
def test_the_card_s_buttons_answer_in_json_and_a_refusal_changes_nothing(client):
    anna, boris = create_player(), create_player()
    client.force_login(anna)
    as_script = {"HTTP_ACCEPT": "application/json"}
    request_url = reverse("friend_request")
    answer = client.post(request_url, {"nickname": boris.username}, **as_script)
    assert (answer.status_code, answer.json()["ok"]) == (200, True)
    again = client.post(request_url, {"nickname": boris.username}, **as_script)  # a double click
    assert again.status_code == 400
    assert again.json() == {"error": "Вы уже отправили этому игроку заявку; дождитесь ответа."}
    before = state_of_relations()
    note_url = reverse("player_note", args=[boris.username])
    assert client.post(note_url, {"text": "x", "colour": "pink"}, **as_script).status_code == 400
    assert client.post(reverse("player_block", args=["nobody"]), **as_script).status_code == 400
    assert client.get(note_url).status_code == 405
    assert state_of_relations() == before
    # A form (no script) is sent back where it came from, only on this site.
    block_url = reverse("player_block", args=[boris.username])
    answer = client.post(block_url, {"next": "https://elsewhere.example/"})
    assert answer["Location"] == reverse("friends")
    assert Block.objects.filter(user=anna, blocked=boris).exists()
