from django.http import HttpRequest

from durak_site.push import services


def push(request: HttpRequest) -> dict:
    """The key a page subscribes a device with; empty while push is off."""
    return {"push_public_key": services.vapid_public_key()}
