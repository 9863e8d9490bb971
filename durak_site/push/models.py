from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class PushSubscription(models.Model):
    """One device (browser) of a player that asked to be notified: where its push service
    takes messages for it, and the keys its messages are encrypted to (RFC 8291)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="push_subscriptions",
        verbose_name=_("player"),
    )
    # A browser's push service gives each subscription an address of its own.
    endpoint = models.URLField(_("endpoint"), max_length=1024, unique=True)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=40)
    # The language of the page that subscribed: the device's notices speak it.
    language = models.CharField(_("language"), max_length=8)
    created_at = models.DateTimeField(_("subscribed"), auto_now_add=True)

    class Meta:
        verbose_name = _("push subscription")
        verbose_name_plural = _("push subscriptions")

    def __str__(self) -> str:
        return f"{self.user} · {self.endpoint[:40]}"
