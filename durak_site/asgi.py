import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
# Django must be set up before anything imports models (consumers do).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from durak_site.ops import error_reports, heartbeats, monitoring  # noqa: E402
from durak_site.routing import websocket_urlpatterns  # noqa: E402
from durak_site.sockets import flow_control, outage_closes  # noqa: E402
from durak_site.sockets.db_threads import AuthMiddlewareStack  # noqa: E402
from durak_site.sockets.open_limits import OpenLimits  # noqa: E402
from durak_site.sockets.origin_check import SiteOriginValidator  # noqa: E402

# Allocations between young collections, young collections between middle ones, middle ones
# between full ones (Python's defaults: 700, 10, 10).
COLLECTOR_THRESHOLDS = (5_000, 10, 10)

flow_control.install()
heartbeats.beat_from_reactor()
monitoring.leave_live_gauges_at_shutdown()
outage_closes.close_sockets_on_shutdown()
application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": error_reports.around_sockets(
            outage_closes.OutageMiddleware(
                SiteOriginValidator(
                    OpenLimits(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
                )
            )
        ),
    }
)
# What start-up loaded (Django, the models, the routes) lives as long as the process. Left to
# the collector, every full collection walked all of it again, a pause for every socket of the
# process; frozen, it is never scanned.
gc.freeze()
# The sockets' own objects still make a full collection long, and at Python's default
# thresholds full collections came often under load, young ones many times a second. Collected
# every 5,000 new objects instead of 700, most of a move's objects are gone before the collector
# looks, and full collections are rare.
gc.set_threshold(*COLLECTOR_THRESHOLDS)
