"""The installable app around the pages: the web app manifest, the service worker and the page
it shows when a navigation fails offline.

The service worker keeps only the offline page and what that page loads; every other request
goes to the network untouched, so no game page or API answer is ever served from a cache.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache as once
from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import get_template, render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control

# The site's colours (static/css/site.css): the felt of the header, the page's background.
THEME_COLOUR = "#0f3d2e"
BACKGROUND_COLOUR = "#eef1ee"


def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the page's language; the installed app opens the lobby."""
    icon = "image/png"
    return JsonResponse(
        {
            "id": "/",
            "name": _("Durak do zavala"),
            "short_name": _("Durak"),
            "description": _("Transfer durak for 2 to 6 players, live, for stakes."),
            "lang": get_language(),
            "start_url": reverse("lobby"),
            "scope": "/",
            "display": "standalone",
            "orientation": "any",
            "theme_color": THEME_COLOUR,
            "background_color": BACKGROUND_COLOUR,
            "icons": [
                {"src": static("img/icon-192.png"), "sizes": "192x192", "type": icon},
                {"src": static("img/icon-512.png"), "sizes": "512x512", "type": icon},
                {
                    "src": static("img/icon-maskable-512.png"),
                    "sizes": "512x512",
                    "type": icon,
                    "purpose": "maskable",
                },
            ],
        },
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )


def offline_assets() -> list[str]:
    """What the offline page loads besides itself, kept by the service worker."""
    return [
        static("css/site.css"),
        static("img/favicon.svg"),
        static("img/icon-192.png"),
        static("img/icon-badge-96.png"),
    ]


@once
def _cache_version() -> str:
    """Changes whenever the offline page or its files do, so that a new worker replaces the
    old one's cache (the files' names carry their hashes in production)."""
    source = get_template("offline.html").template.source
    return hashlib.sha256(json.dumps([source, offline_assets()]).encode()).hexdigest()[:12]


@once
def _worker_source() -> str:
    return Path(finders.find("js/sw.js")).read_text()


@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, from the site's root so that it controls every page."""
    config = {
        "cache": f"durak-offline-{_cache_version()}",
        "offline": reverse("offline"),
        "assets": offline_assets(),
        "icon": static("img/icon-192.png"),
        "badge": static("img/icon-badge-96.png"),
    }
    script = f"const CONFIG = {json.dumps(config)};\n{_worker_source()}"
    response = HttpResponse(script, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response


def offline(request: HttpRequest) -> HttpResponse:
    """The page shown instead of any page the network could not bring. It is kept by the
    service worker and shown to whoever uses the device, so it holds nobody's data."""
    return HttpResponse(render_to_string("offline.html"))
