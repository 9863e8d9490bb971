"""Page-level protections: a strict Content-Security-Policy, no NUL bytes in addresses, and an
error reporter that hides every setting that may hold a password.

The pages load scripts and styles only from the site's own files (data for scripts comes in
``application/json`` blocks, which are not executed), so an injected inline script or handler
never runs. The admin (Django's and its add-ons' templates) is left to its own headers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from django.core.exceptions import DisallowedHost
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.views.debug import SafeExceptionReporterFilter

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self' {sockets}; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
EXEMPT_PREFIXES = ("/admin/",)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(EXEMPT_PREFIXES):
            response.headers.setdefault("Content-Security-Policy", policy_for(request))
        return response


def policy_for(request: HttpRequest, *, form_targets: Iterable[str] = ()) -> str:
    """The policy; ``form_targets`` are other origins a form of the page may lead to (a form's
    redirect counts too, e.g. to a payment provider's checkout)."""
    # Older browsers do not count ws(s) to the same host as 'self': name it.
    scheme = "wss" if request.is_secure() else "ws"
    try:
        sockets = f"{scheme}://{request.get_host()}"
    except DisallowedHost:
        sockets = ""
    policy = POLICY.format(sockets=sockets)
    targets = " ".join(sorted(set(form_targets)))
    if targets:
        policy = policy.replace("form-action 'self'", f"form-action 'self' {targets}")
    return policy


class RejectNulMiddleware:
    """No address holds a NUL byte: such a path is not found, such a query is refused. (The
    database refuses NUL in text, so it would otherwise fail deep inside a view.)"""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            raise Http404
        if any(
            "\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()
        ):
            return HttpResponseBadRequest()
        return self.get_response(request)


class SettingsFilter(SafeExceptionReporterFilter):
    """Also hides URL-like settings (DATABASE_URL, REDIS_URL, cache and channel-layer hosts,
    the Celery broker): any of them may carry a password."""

    hidden_settings = re.compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|URL|LOCATION|HOST|DSN|BROKER|ADDRESS",
        flags=re.IGNORECASE,
    )
