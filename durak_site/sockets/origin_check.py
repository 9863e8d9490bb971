"""Sockets are opened only by the site's own pages.

A browser names the page that opens a socket in its ``Origin`` header. It must be exactly the
scheme, host and port the socket was asked for (the scheme as the proxy reports it, like Django's
``SECURE_PROXY_SSL_HEADER`` for pages), or one of ``CSRF_TRUSTED_ORIGINS``: the same rule Django
applies to form posts. A host that is not in ``ALLOWED_HOSTS`` is refused whatever the origin.
"""

from __future__ import annotations

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host


class SiteOriginValidator:
    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def origin_allowed(scope: dict) -> bool:
    headers = {name: value.decode("latin-1") for name, value in scope.get("headers", [])}
    origin = headers.get(b"origin", "").lower()
    host = headers.get(b"host", "").lower()
    domain, _port = split_domain_port(host)
    if not origin or not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    return origin == f"{_scheme(scope, headers)}://{host}" or origin in {
        trusted.lower() for trusted in settings.CSRF_TRUSTED_ORIGINS
    }


def _scheme(scope: dict, headers: dict[bytes, str]) -> str:
    header, secure_value = settings.SECURE_PROXY_SSL_HEADER
    proxied = headers.get(header.removeprefix("HTTP_").lower().replace("_", "-").encode())
    if proxied is not None:
        return "https" if proxied.split(",")[0].strip() == secure_value else "http"
    return "https" if scope.get("scheme") == "wss" else "http"
