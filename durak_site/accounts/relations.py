"""Players among themselves: friend requests and friendships, blocks, private notes.

Every command takes the acting player and names the other by nickname (as the pages show him)
or a friendship by id; anything that does not fit (no such player, himself, a duplicate, a
block, someone else's request) raises RelationError and changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from durak_site.accounts.models import Block, Friendship, NoteColour, PlayerNote, User
from durak_site.backends import rate_limits

# Friend requests per player: a burst, then 20 an hour.
REQUESTS_BURST = 10.0
REQUESTS_PER_SECOND = 20 / 3600
NOTE_MAX_CHARS = PlayerNote._meta.get_field("text").max_length

MESSAGES: dict[str, Promise] = {
    "no_such_player": _("There is no player with this nickname."),
    "self": _("That is you."),
    "blocked": _("You cannot do that with this player."),
    "already_friends": _("You are friends already."),
    "already_asked": _("You have asked this player already; wait for the answer."),
    "no_such_request": _("This request is no longer there."),
    "requests_too_fast": _("You send friend requests too often; please wait a while."),
    "already_blocked": _("You have blocked this player already."),
    "not_blocked": _("This player is not blocked."),
    "bad_colour": _("Choose one of the colours."),
    "note_too_long": _("The note is too long."),
}


class RelationError(Exception):
    def __init__(self, code: str) -> None:
        self.code = code
        self.message = MESSAGES[code]
        super().__init__(code)


def player_named(nickname: Any, *, viewer) -> User:
    """The open account with this nickname (any case), other than the viewer's own."""
    player = (
        User.objects.filter(username__iexact=nickname, closed_at__isnull=True).first()
        if isinstance(nickname, str) and nickname
        else None
    )
    if player is None:
        raise RelationError("no_such_player")
    if player.pk == viewer.pk:
        raise RelationError("self")
    return player


def blocked_between(first_id: int, second_id: int) -> bool:
    """Whether either of the two players has blocked the other."""
    return Block.objects.filter(
        Q(user_id=first_id, blocked_id=second_id) | Q(user_id=second_id, blocked_id=first_id)
    ).exists()


def _pair(first_id: int, second_id: int) -> Q:
    return Q(from_user_id=first_id, to_user_id=second_id) | Q(
        from_user_id=second_id, to_user_id=first_id
    )


def friend_request(*, user, nickname: Any) -> Friendship:
    """Ask a player to be friends. If he has asked this player already, they become friends."""
    other = player_named(nickname, viewer=user)
    if blocked_between(user.pk, other.pk):
        raise RelationError("blocked")
    with transaction.atomic():
        existing = Friendship.objects.select_for_update().filter(_pair(user.pk, other.pk)).first()
        if existing is not None:
            if existing.status == Friendship.Status.ACCEPTED:
                raise RelationError("already_friends")
            if existing.from_user_id == user.pk:
                raise RelationError("already_asked")
            existing.status, existing.accepted_at = Friendship.Status.ACCEPTED, timezone.now()
            existing.save(update_fields=["status", "accepted_at"])
            return existing
        if not rate_limits.take(
            f"friend-requests:{user.pk}", rate=REQUESTS_PER_SECOND, burst=REQUESTS_BURST
        ):
            raise RelationError("requests_too_fast")
        try:
            with transaction.atomic():
                return Friendship.objects.create(from_user=user, to_user=other)
        except IntegrityError:
            # The same request sent twice at once, or crossing his: the first one stands.
            raise RelationError("already_asked") from None


def friend_accept(*, user, friendship_id: Any) -> Friendship:
    """Accept a friend request sent to the user."""
    friendship_id = _row_id(friendship_id)
    if friendship_id is None:
        raise RelationError("no_such_request")
    accepted = Friendship.objects.filter(
        pk=friendship_id, to_user=user, status=Friendship.Status.REQUESTED
    ).update(status=Friendship.Status.ACCEPTED, accepted_at=timezone.now())
    if not accepted:
        raise RelationError("no_such_request")
    return Friendship.objects.get(pk=friendship_id)


def friendship_end(*, user, friendship_id: Any) -> None:
    """Decline a request sent to the user, withdraw one he sent, or end a friendship."""
    friendship_id = _row_id(friendship_id)
    if friendship_id is None:
        raise RelationError("no_such_request")
    deleted, _rows = (
        Friendship.objects.filter(pk=friendship_id)
        .filter(Q(from_user=user) | Q(to_user=user))
        .delete()
    )
    if not deleted:
        raise RelationError("no_such_request")


def friend_ids(*, user) -> list[int]:
    """The user's friends."""
    rows = Friendship.objects.filter(
        Q(from_user=user) | Q(to_user=user), status=Friendship.Status.ACCEPTED
    ).values_list("from_user_id", "to_user_id")
    return [second if first == user.pk else first for first, second in rows]


def are_friends(first_id: int, second_id: int) -> bool:
    return Friendship.objects.filter(
        _pair(first_id, second_id), status=Friendship.Status.ACCEPTED
    ).exists()


def block(*, user, nickname: Any) -> Block:
    """Block a player: any friendship or request between them ends."""
    other = player_named(nickname, viewer=user)
    with transaction.atomic():
        try:
            with transaction.atomic():
                blocked = Block.objects.create(user=user, blocked=other)
        except IntegrityError:
            raise RelationError("already_blocked") from None
        Friendship.objects.filter(_pair(user.pk, other.pk)).delete()
    return blocked


def unblock(*, user, nickname: Any) -> None:
    other = player_named(nickname, viewer=user)
    deleted, _rows = Block.objects.filter(user=user, blocked=other).delete()
    if not deleted:
        raise RelationError("not_blocked")


def blocked_ids(*, user) -> set[int]:
    """The players the user has blocked."""
    return set(Block.objects.filter(user=user).values_list("blocked_id", flat=True))


def note_save(*, user, nickname: Any, text: Any, colour: Any) -> PlayerNote | None:
    """Write (or rewrite) the user's note on a player; an empty text deletes it (None)."""
    other = player_named(nickname, viewer=user)
    if not isinstance(text, str):
        raise RelationError("note_too_long")
    text = " ".join(text.split())
    if len(text) > NOTE_MAX_CHARS:
        raise RelationError("note_too_long")
    if colour not in NoteColour.values:
        raise RelationError("bad_colour")
    if not text:
        PlayerNote.objects.filter(author=user, player=other).delete()
        return None
    note, _created = PlayerNote.objects.update_or_create(
        author=user, player=other, defaults={"text": text, "colour": colour}
    )
    return note


def note_on(*, author, player_id: int) -> dict[str, str] | None:
    """The author's note on a player, as pages and cards show it; None when he wrote none."""
    if not author.is_authenticated:
        return None
    note = PlayerNote.objects.filter(author=author, player_id=player_id).first()
    return {"text": note.text, "colour": note.colour} if note is not None else None


def _row_id(value: Any) -> int | None:
    """A row id given as a number or as the digits of a form field; None for anything else."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        value = int(value)
    return value if type(value) is int and 0 < value < 2**63 else None
