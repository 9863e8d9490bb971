import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
# Django must be set up before anything imports models (consumers do).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from durak_site import accepts, backlog, heartbeats  # noqa: E402
from durak_site.db import AuthMiddlewareStack  # noqa: E402
from durak_site.opens import OpenLimits  # noqa: E402
from durak_site.origins import SiteOriginValidator  # noqa: E402
from durak_site.outages import OutageMiddleware  # noqa: E402
from durak_site.routing import websocket_urlpatterns  # noqa: E402

accepts.install()
backlog.install()
heartbeats.beat_from_reactor()
application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": OutageMiddleware(
            SiteOriginValidator(OpenLimits(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))))
        ),
    }
)
# What start-up loaded (Django, the models, the routes: some 190,000 objects) lives as long as
# the process. Left to the collector, every full collection walked all of it again, a pause of
# 120-180 ms for every socket of the process; frozen, it is never scanned.
gc.freeze()
