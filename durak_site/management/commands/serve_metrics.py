from __future__ import annotations

import logging
from wsgiref.simple_server import WSGIRequestHandler, make_server

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from prometheus_client import make_wsgi_app

from durak_site.ops import metrics

logger = logging.getLogger(__name__)


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args) -> None:
        """Scrapes come every few seconds: no access line for each."""


class Command(BaseCommand):
    help = (
        "Serve the metrics of every process of this run (PROMETHEUS_MULTIPROC_DIR) for "
        "Prometheus at http://METRICS_HOST:METRICS_PORT/metrics, one scrape at a time."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=settings.METRICS_HOST)
        parser.add_argument("--port", type=int, default=settings.METRICS_PORT)

    def handle(self, *args, host: str, port: int, **options) -> None:
        path = metrics.directory()
        if path is None:
            raise CommandError(f"{metrics.DIRECTORY_VARIABLE} is not set: no process writes there")
        app = make_wsgi_app(metrics.scrape_registry(path))
        # One thread: scrapes share one database connection and never run side by side.
        with make_server(host, port, app, handler_class=QuietHandler) as server:
            logger.info("metrics at http://%s:%s/metrics", host, port)
            server.serve_forever()
