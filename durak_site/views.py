import json

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from durak_site.accounts import services


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


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
