from __future__ import annotations

import os
import uuid
from pathlib import Path

from allauth.mfa.models import Authenticator
from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.files.storage import FileSystemStorage
from django.db import models
from django.db.models.functions import Greatest, Least, Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from durak_site.accounts import nicknames


class NicknameValidator(UnicodeUsernameValidator):
    regex = r"^[\w.-]{3,24}\Z"
    message = _("A nickname is 3 to 24 letters, digits, dots, dashes or underscores.")


NICKNAME_TAKEN = _("This nickname is already taken.")


class IdentityStatus(models.TextChoices):
    NOT_CHECKED = "not_checked", _("not checked")
    PENDING = "pending", _("documents awaiting review")
    VERIFIED = "verified", _("verified")
    REFUSED = "refused", _("refused")


class User(AbstractUser):
    """A player. The username is the nickname shown at tables; people log in by e-mail."""

    username = models.CharField(
        _("nickname"),
        max_length=24,
        unique=True,
        validators=[NicknameValidator(), nicknames.validate],
        error_messages={"unique": NICKNAME_TAKEN},
    )
    # What the nickname looks like (nicknames.skeleton): no two players look alike at a table.
    nickname_key = models.CharField(max_length=100, unique=True, editable=False)
    email = models.EmailField(_("e-mail address"), unique=True)
    # Set when the account is closed and its personal data anonymised (accounts.closure).
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    # Asked at sign-up (players under 18 are refused); none for accounts made otherwise.
    date_of_birth = models.DateField(_("date of birth"), null=True, blank=True)
    # Where the check of the player's identity documents stands (accounts.identity).
    identity_status = models.CharField(
        _("identity check"),
        max_length=12,
        choices=IdentityStatus.choices,
        default=IdentityStatus.NOT_CHECKED,
    )
    identity_decided_at = models.DateTimeField(_("identity decided"), null=True, blank=True)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        permissions = [
            ("close_account", _("Can close a player's account")),
            ("review_identity", _("Can verify or refuse a player's identity documents")),
        ]
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_nickname_ci_unique"),
        ]

    def clean(self) -> None:
        super().clean()  # NFKC-normalises the nickname
        taken = User.objects.filter(nickname_key=nicknames.skeleton(self.username))
        if taken.exclude(pk=self.pk).exists():
            raise ValidationError({"username": NICKNAME_TAKEN})

    def save(self, *args, **kwargs) -> None:
        self.nickname_key = nicknames.skeleton(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "nickname_key"}
        super().save(*args, **kwargs)

    @property
    def nickname(self) -> str:
        return self.username

    def __str__(self) -> str:
        return self.username


class TableSettings(models.Model):
    """How one player likes the table to look and behave; the same on every device."""

    class HandOrder(models.TextChoices):
        RANK = "rank", _("by rank")
        SUIT = "suit", _("by suit")

    class CardSize(models.TextChoices):
        SMALL = "small", _("small")
        MEDIUM = "medium", _("medium")
        LARGE = "large", _("large")

    class Motion(models.TextChoices):
        OFF = "off", _("off")
        FAST = "fast", _("fast")
        NORMAL = "normal", _("normal")

    user = models.OneToOneField(
        User,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="table_settings",
        verbose_name=_("player"),
    )
    hand_order = models.CharField(
        _("hand order"), max_length=8, choices=HandOrder.choices, default=HandOrder.RANK
    )
    card_size = models.CharField(
        _("card size"), max_length=8, choices=CardSize.choices, default=CardSize.MEDIUM
    )
    sound = models.BooleanField(_("sound"), default=True)
    confirm_take = models.BooleanField(_("confirm before taking"), default=False)
    motion = models.CharField(
        _("animation speed"), max_length=8, choices=Motion.choices, default=Motion.NORMAL
    )
    notifications = models.BooleanField(_("notify when it is my turn"), default=False)

    class Meta:
        verbose_name = _("table settings")
        verbose_name_plural = _("table settings")

    def __str__(self) -> str:
        return str(self.user)


class IdentityStorage(FileSystemStorage):
    """Identity documents live in a folder of their own (IDENTITY_DOCUMENTS_DIR, read when
    used), outside anything a web server serves, and have no address: staff open them through
    a view that checks their permission (accounts.admin)."""

    @property
    def base_location(self) -> str:
        return str(settings.IDENTITY_DOCUMENTS_DIR)

    @property
    def location(self) -> str:
        return os.path.abspath(self.base_location)

    def url(self, name: str | None) -> str:
        raise ValueError("identity documents have no public address")


def identity_storage() -> FileSystemStorage:
    return IdentityStorage()


def _document_path(document: IdentityDocument, filename: str) -> str:
    # A random name: nothing the player chose reaches the file system.
    return f"{document.user_id}/{uuid.uuid4().hex}{Path(filename).suffix.lower()}"


class IdentityDocument(models.Model):
    """A scan or photo of an identity document a player uploaded for staff to review."""

    user = models.ForeignKey(
        User,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="identity_documents",
    )
    file = models.FileField(_("file"), storage=identity_storage, upload_to=_document_path)
    content_type = models.CharField(_("file type"), max_length=40)
    size = models.PositiveIntegerField(_("size, bytes"))
    uploaded_at = models.DateTimeField(_("uploaded"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("identity document")
        verbose_name_plural = _("identity documents")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.user}"


class SecondFactor(Authenticator):
    """allauth's record of a user's second factor, named for the staff pages."""

    class Meta:
        proxy = True
        verbose_name = _("second factor")
        verbose_name_plural = _("second factors")


class Friendship(models.Model):
    """A friend request from one player to another, and once accepted their friendship: one row
    per pair of players, whichever of them asked."""

    class Status(models.TextChoices):
        REQUESTED = "requested", _("requested")
        ACCEPTED = "accepted", _("accepted")

    from_user = models.ForeignKey(
        User,
        on_delete=models.CASCADE,
        related_name="friend_requests_sent",
        verbose_name=_("asked by"),
    )
    to_user = models.ForeignKey(
        User,
        on_delete=models.CASCADE,
        related_name="friend_requests_received",
        verbose_name=_("asked"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.REQUESTED
    )
    created_at = models.DateTimeField(_("asked at"), auto_now_add=True)
    accepted_at = models.DateTimeField(_("accepted at"), null=True, blank=True)

    class Meta:
        verbose_name = _("friendship")
        verbose_name_plural = _("friendships")
        constraints = [
            models.UniqueConstraint(
                Least("from_user", "to_user"),
                Greatest("from_user", "to_user"),
                name="accounts_friendship_one_per_pair",
            ),
            models.CheckConstraint(
                condition=~models.Q(from_user=models.F("to_user")),
                name="accounts_friendship_not_self",
            ),
        ]
        indexes = [models.Index(fields=["to_user", "status"], name="accounts_friend_to_idx")]

    def __str__(self) -> str:
        return f"{self.from_user} → {self.to_user}"


class Block(models.Model):
    """A player blocked by another: he cannot invite him, write to him or see him online."""

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="blocks", verbose_name=_("player")
    )
    blocked = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="blocked_by", verbose_name=_("blocked")
    )
    created_at = models.DateTimeField(_("blocked at"), auto_now_add=True)

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        constraints = [
            models.UniqueConstraint(fields=["user", "blocked"], name="accounts_block_once"),
            models.CheckConstraint(
                condition=~models.Q(user=models.F("blocked")), name="accounts_block_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ⊘ {self.blocked}"


class NoteColour(models.TextChoices):
    GREY = "grey", _("grey")
    GREEN = "green", _("green")
    YELLOW = "yellow", _("yellow")
    RED = "red", _("red")
    BLUE = "blue", _("blue")
    PURPLE = "purple", _("purple")


class PlayerNote(models.Model):
    """What one player wrote down about another, for himself alone."""

    author = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="notes_written", verbose_name=_("author")
    )
    player = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="notes_about", verbose_name=_("player")
    )
    text = models.CharField(_("note"), max_length=300, blank=True)
    colour = models.CharField(
        _("colour"), max_length=8, choices=NoteColour.choices, default=NoteColour.GREY
    )
    updated_at = models.DateTimeField(_("changed at"), auto_now=True)

    class Meta:
        verbose_name = _("player note")
        verbose_name_plural = _("player notes")
        constraints = [
            models.UniqueConstraint(fields=["author", "player"], name="accounts_note_once"),
            models.CheckConstraint(
                condition=~models.Q(author=models.F("player")), name="accounts_note_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.author} · {self.player}"
