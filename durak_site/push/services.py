"""Subscribing devices, and sending one notice to every device of some users.

A notice lives only as long as what it announces: its TTL is the seconds left until
``expires_at``, and the push service keeps it no longer while the device is offline. Notices
with the same ``topic`` replace each other, at the push service (the ``Topic`` header) and on
the device (the notification's ``tag``, set by ``static/js/sw.js``). A subscription its push
service no longer knows (404 or 410) is deleted.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache as once
from typing import Any
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from durak_site.push.models import PushSubscription

# Devices one player may subscribe; a new one beyond this replaces his oldest.
DEVICES_PER_USER = 10
# How long a push service may take to answer before the device is skipped this time.
SEND_TIMEOUT_SECONDS = 5
# Answers of a push service meaning the subscription is gone for good.
GONE = {404, 410}
logger = logging.getLogger(__name__)


def push_enabled() -> bool:
    """Pushes are sent only with a VAPID key pair (docs/deployment.md)."""
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def vapid_public_key() -> str:
    """The key browsers subscribe with (``applicationServerKey``); empty while push is off."""
    return settings.VAPID_PUBLIC_KEY if push_enabled() else ""


@dataclass(frozen=True)
class Notice:
    """What one notification says and how long it matters. ``title`` and ``body`` are lazy
    translations with ``%(name)s`` placeholders filled from ``params`` in each device's
    language (a param may be lazy too: an amount of money is written in that language)."""

    title: Any
    body: Any
    url: str
    topic: str
    expires_at: float
    params: Mapping[str, Any] = field(default_factory=dict)

    def payload(self, language: str) -> str:
        with translation.override(language):
            return json.dumps(
                {
                    "title": str(self.title) % self.params,
                    "body": str(self.body) % self.params,
                    "url": self.url,
                    "tag": self.topic,
                },
                ensure_ascii=False,
            )


def subscription_save(*, user, data: Any, language: str) -> PushSubscription:
    """Record (or renew) a device's subscription, as the browser's ``PushSubscription.toJSON()``
    gives it. A device subscribed by another player before now belongs to this one."""
    endpoint, p256dh, auth = _checked(data)
    with transaction.atomic():
        subscription, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={"user": user, "p256dh": p256dh, "auth": auth, "language": language},
        )
        older = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")
        stale = older.values_list("pk", flat=True)[DEVICES_PER_USER:]
        PushSubscription.objects.filter(pk__in=list(stale)).delete()
    return subscription


def subscription_delete(*, user, endpoint: Any) -> bool:
    """Forget one of the user's devices; False when it was not his."""
    if not isinstance(endpoint, str):
        raise ValidationError(_("Send the subscription's endpoint."))
    deleted, _rows = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return bool(deleted)


def notify(*, user_ids: Iterable[int], notice: Notice) -> int:
    """Send the notice to every device of the users (one statement to find them); returns how
    many push services took it. Nothing is sent once it has expired or while push is off."""
    ttl = int(notice.expires_at - time.time())
    if ttl <= 0 or not push_enabled():
        return 0
    sent = 0
    for subscription in PushSubscription.objects.filter(user_id__in=list(user_ids)):
        sent += _send(subscription, notice, ttl)
    return sent


def _send(subscription: PushSubscription, notice: Notice, ttl: int) -> bool:
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=notice.payload(subscription.language),
            vapid_private_key=_vapid(settings.VAPID_PRIVATE_KEY),
            vapid_claims={"sub": settings.VAPID_SUBJECT},  # webpush adds "aud" and "exp" to it
            ttl=ttl,
            headers={"Topic": notice.topic, "Urgency": "high"},
            timeout=SEND_TIMEOUT_SECONDS,
            requests_session=_session(),
        )
    except WebPushException as error:
        status = error.response.status_code if error.response is not None else None
        if status in GONE:
            subscription.delete()
        else:
            logger.warning("push refused", extra={"status": status, "push": subscription.pk})
        return False
    except requests.RequestException as error:
        logger.warning("push service unreachable", extra={"error": str(error)})
        return False
    return True


@once
def _vapid(private_key: str) -> Vapid:
    return Vapid.from_string(private_key)


@once
def _session() -> requests.Session:
    """One session per process: connections to a push service are kept between sends."""
    return requests.Session()


def _checked(data: Any) -> tuple[str, str, str]:
    """The endpoint and keys of a subscription, or ValidationError. Only the push services of
    ``PUSH_SERVICE_HOSTS`` are accepted: the server posts to the endpoint."""
    invalid = ValidationError(_("This is not a push subscription."))
    if not isinstance(data, dict) or not isinstance(data.get("keys"), dict):
        raise invalid
    endpoint, keys = data.get("endpoint"), data["keys"]
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not all(isinstance(value, str) for value in (endpoint, p256dh, auth)):
        raise invalid
    if len(endpoint) > 1024 or _decoded_length(p256dh) != 65 or _decoded_length(auth) != 16:
        raise invalid
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if not _known_push_service(host) or parts.scheme != ("http" if _loopback(host) else "https"):
        raise ValidationError(_("This browser's push service is not supported."))
    return endpoint, p256dh, auth


def _known_push_service(host: str) -> bool:
    return any(
        host.endswith(known) if known.startswith(".") else host == known
        for known in settings.PUSH_SERVICE_HOSTS
    )


def _loopback(host: str) -> bool:
    """A push service on this machine (tests) is reached without TLS."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _decoded_length(text: str) -> int | None:
    try:
        return len(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError):
        return None
