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
