"""Live sockets end with the session they were opened with.

Every socket joins a channel-layer group of its session and one of its user. Logging out closes
the session's sockets at once. A new password or a deactivated account makes each of the user's
sockets check its session again (``session_is_valid``): those of other sessions close, the one
that changed the password stays. A socket also checks its session when a message arrives, for
the ends no signal announces (an expired or deleted session).
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db import connection, transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.utils import timezone
from django.utils.crypto import constant_time_compare

# Channel-layer messages to sockets: close now, or close unless the session still stands.
REVOKED = {"type": "session.revoked"}
CHECK = {"type": "session.check"}
_CREDENTIALS = ("password", "is_active")


def user_group(user_id: int) -> str:
    return f"sockets-user-{user_id}"


def session_group(session_key: str) -> str:
    return f"sockets-session-{session_key}"


def check_user_sockets(user_id: int) -> None:
    """Make every socket of the user, on every server process, check its session."""
    async_to_sync(get_channel_layer().group_send)(user_group(user_id), CHECK)


def close_session_sockets(session_key: str) -> None:
    """Close the sockets opened with one session (its other devices stay connected)."""
    async_to_sync(get_channel_layer().group_send)(session_group(session_key), REVOKED)


def session_is_valid(session_key: str | None, user_id: int) -> bool:
    """Whether the stored, unexpired session still logs in this active user with his current
    password.

    Every socket that sends asks this every few seconds: one statement written once, where the
    session store and the ORM would each compile a query of their own.
    """
    if not session_key:
        return False
    with connection.cursor() as cursor:
        cursor.execute(_session_query(), [user_id, session_key, timezone.now()])
        row = cursor.fetchone()
    if row is None:
        return False
    session_data, password = row
    data = import_module(settings.SESSION_ENGINE).SessionStore().decode(session_data)
    if str(data.get(SESSION_KEY)) != str(user_id):
        return False
    user = get_user_model()(pk=user_id, password=password)
    return constant_time_compare(data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash())


@cache
def _session_query() -> str:
    sessions = import_module(settings.SESSION_ENGINE).SessionStore.get_model_class()._meta
    users = get_user_model()._meta
    return (
        f"SELECT s.session_data, u.password FROM {sessions.db_table} s"
        f" JOIN {users.db_table} u ON u.id = %s AND u.is_active"
        " WHERE s.session_key = %s AND s.expire_date > %s"
    )


@receiver(user_logged_out)
def _logged_out(sender, request, user, **kwargs) -> None:
    session_key = getattr(request.session, "session_key", None)
    if session_key:
        close_session_sockets(session_key)


@receiver(pre_save, sender="accounts.User")
def _remember_credentials(sender, instance, update_fields=None, **kwargs) -> None:
    if instance.pk is None or (
        update_fields is not None and not set(_CREDENTIALS) & set(update_fields)
    ):
        return
    instance._stored_credentials = (
        sender.objects.filter(pk=instance.pk).values_list(*_CREDENTIALS).first()
    )


@receiver(post_save, sender="accounts.User")
def _credentials_changed(sender, instance, created, **kwargs) -> None:
    stored = instance.__dict__.pop("_stored_credentials", None)
    if stored is not None and stored != (instance.password, instance.is_active):
        user_id = instance.pk
        transaction.on_commit(lambda: check_user_sockets(user_id))
