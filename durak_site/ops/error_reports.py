"""Error reports to Sentry, when SENTRY_DSN is set; without it nothing is sent or changed.

Web requests (Django), sockets (the ASGI middleware around the socket routes), Celery tasks and
beat (its jobs as cron monitors) report their errors, and error log lines become events. An
event carries the table, game, version and user ids the code had bound for its log lines
(durak_site.ops.json_logs) as tags, and nothing personal: no request bodies, cookies or headers that
identify, no frame variables, no client addresses, and any e-mail address or card number in a
message is masked before it leaves.
"""

from __future__ import annotations

import re
from typing import Any

import sentry_sdk
from sentry_sdk.integrations.asgi import SentryAsgiMiddleware
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration
from sentry_sdk.scrubber import DEFAULT_DENYLIST, DEFAULT_PII_DENYLIST, EventScrubber

from durak_site.ops import json_logs as site_logging

# Keys whose values never leave, wherever they appear in an event.
PERSONAL_KEYS = [
    "email",
    "login",
    "username",
    "password1",
    "password2",
    "oldpassword",
    "code",
    "payout_details",
    "card",
    "card_number",
    "pan",
    "cvv",
    "cvc",
    "phone",
    "ip",
    "user_agent",
    "x_real_ip",
    "http_x_forwarded_for",
    "remote_addr",
]
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
# 13 to 19 digits, in groups or not: what a payment card number looks like.
CARD_NUMBER = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")


# The event's own ids and times, which look like neither but are left exactly as they are.
_OWN_FIELDS = frozenset({"event_id", "timestamp", "start_timestamp", "contexts", "sdk"})


def _masked(text: str) -> str:
    return CARD_NUMBER.sub("[card]", EMAIL.sub("[email]", text))


def _mask_strings(value: Any) -> Any:
    if isinstance(value, str):
        return _masked(value)
    if isinstance(value, dict):
        return {key: _mask_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_strings(item) for item in value]
    return value


def prepare_event(event: dict, hint: dict) -> dict:
    """Tag the event with the bound ids and mask what could identify a person."""
    bound = site_logging.bound()
    tags = event.setdefault("tags", {})
    for name in ("table", "game", "version"):
        if name in bound:
            tags[name] = str(bound[name])
    user_id = bound.get("user") or (event.get("user") or {}).get("id")
    event["user"] = {"id": str(user_id)} if user_id else {}
    request = event.get("request")
    if isinstance(request, dict):
        for part in ("cookies", "data", "env", "query_string"):
            request.pop(part, None)
    return {
        key: value if key in _OWN_FIELDS else _mask_strings(value) for key, value in event.items()
    }


def init_error_reports(dsn: str, *, environment: str, release: str | None) -> bool:
    """Start reporting to ``dsn``; False (and nothing started) when it is empty."""
    if not dsn:
        return False
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release or None,
        integrations=[DjangoIntegration(), CeleryIntegration(monitor_beat_tasks=True)],
        send_default_pii=False,
        include_local_variables=False,
        max_request_body_size="never",
        event_scrubber=EventScrubber(
            denylist=DEFAULT_DENYLIST + PERSONAL_KEYS,
            pii_denylist=DEFAULT_PII_DENYLIST,
            recursive=True,
        ),
        before_send=prepare_event,
        before_breadcrumb=lambda crumb, hint: _mask_strings(crumb),
    )
    return True


def around_sockets(application):
    """The socket routes inside Sentry's ASGI middleware when reports are on (each socket its
    own scope, its errors reported); the application itself otherwise."""
    if sentry_sdk.get_client().is_active():
        return SentryAsgiMiddleware(application)
    return application
