from django.contrib.auth.models import AbstractUser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class NicknameValidator(UnicodeUsernameValidator):
    regex = r"^[\w.-]{3,24}\Z"
    message = _("A nickname is 3 to 24 letters, digits, dots, dashes or underscores.")


class User(AbstractUser):
    """A player. The username is the nickname shown at tables; people log in by e-mail."""

    username = models.CharField(
        _("nickname"),
        max_length=24,
        unique=True,
        validators=[NicknameValidator()],
        error_messages={"unique": _("This nickname is already taken.")},
    )
    email = models.EmailField(_("e-mail address"), unique=True)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_nickname_ci_unique"),
        ]

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
