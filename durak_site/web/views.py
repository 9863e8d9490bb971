import json
import sys

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from durak_site.accounts import services
from durak_site.sockets.outage_closes import BACKEND_ERRORS

# A page that met a database or Redis outage asks the browser to come back after this long.
OUTAGE_RETRY_SECONDS = 10


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def server_error(request: HttpRequest) -> HttpResponse:
    """The page of an error the platform did not expect (DEBUG off).

    A database or Redis outage answers 503 with a page that reloads itself, since trying again
    will help. The page is drawn without the request's context processors: the user and balance
    they give are read from the database that may be down.
    """
    unavailable = isinstance(sys.exc_info()[1], BACKEND_ERRORS)
    if unavailable:
        heading = _("The game servers are briefly unavailable")
        explanation = _(
            "Nothing is lost: your games and money are kept. The page will reload by itself "
            "in a few seconds."
        )
    else:
        heading = _("Something went wrong")
        explanation = _("The error is logged and we will look into it. Please try again.")
    retry = OUTAGE_RETRY_SECONDS if unavailable and request.method == "GET" else None
    page = render_to_string(
        "errors/page.html",
        {
            "heading": heading,
            "explanation": explanation,
            "retry_seconds": retry,
            "request": request,
            "csrf_token": get_token(request),  # the language switch posts a form
        },
    )
    response = HttpResponse(page, status=503 if unavailable else 500)
    if unavailable:
        response["Retry-After"] = str(OUTAGE_RETRY_SECONDS)
    return response


def favicon(request: HttpRequest) -> HttpResponse:
    """Pages name their icon; this answers the browsers that ask for /favicon.ico anyway."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


@login_required
@require_POST
def table_settings(request: HttpRequest) -> JsonResponse:
    """Change the player's table settings: a JSON object of the settings to change."""
    try:
        changes = json.loads(request.body)
    except ValueError:
        changes = None
    if not isinstance(changes, dict):
        return JsonResponse(
            {"errors": {"__all__": [_("Send the settings as a JSON object.")]}}, status=400
        )
    try:
        saved = services.table_settings_update(user=request.user, changes=changes)
    except ValidationError as error:
        return JsonResponse({"errors": error.message_dict}, status=400)
    return JsonResponse(saved)
