import json

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, JsonResponse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from durak_site.push import services


@login_required
@require_http_methods(["POST", "DELETE"])
def subscription(request: HttpRequest) -> JsonResponse:
    """POST: notify this device (the body is the browser's subscription as JSON); DELETE: stop
    (the body is ``{"endpoint": …}``). The page sends its CSRF token in ``X-CSRFToken``."""
    if not services.push_enabled():
        return JsonResponse({"errors": [_("Notifications are off on this site.")]}, status=404)
    try:
        data = json.loads(request.body)
    except ValueError:
        data = None
    try:
        if request.method == "POST":
            services.subscription_save(
                user=request.user, data=data, language=translation.get_language()
            )
            return JsonResponse({"subscribed": True}, status=201)
        endpoint = data.get("endpoint") if isinstance(data, dict) else None
        services.subscription_delete(user=request.user, endpoint=endpoint)
    except ValidationError as error:
        return JsonResponse({"errors": error.messages}, status=400)
    return JsonResponse({"subscribed": False})
