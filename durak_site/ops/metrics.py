"""Prometheus metrics of every process, served together on a port of their own.

The web processes, the Celery worker (and its pool processes) write their metrics into files
in ``PROMETHEUS_MULTIPROC_DIR``, which the launcher empties for each run; ``manage.py
serve_metrics`` reads them all at each scrape and adds what is counted then: the roles'
heartbeats, the queues in Redis, and each app's figures from the database (its collectors are
named in ``settings.METRICS_COLLECTORS``). Without the directory, a process keeps its metrics
to itself (tests that call the application in-process). The metrics in ``docs/monitoring.md``.

Updating a metric is a write to memory (a mapped file): nothing on a move's path waits on the
network or the database for it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

import redis
from django.conf import settings
from django.db import close_old_connections
from django.utils.module_loading import import_string
from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from durak_site.ops import heartbeats
from durak_site.ops.monitoring import DIRECTORY_VARIABLE

# Sockets open now, by kind ("lobby", "table"): the sum over the live processes, and each
# process's own (labelled with its pid); a process that died counts no more.
OPEN_SOCKETS = Gauge(
    "durak_open_sockets",
    "WebSockets open now, over every live web process",
    ["kind"],
    multiprocess_mode="livesum",
)
PROCESS_OPEN_SOCKETS = Gauge(
    "durak_process_open_sockets",
    "WebSockets open now in each web process",
    ["kind"],
    multiprocess_mode="liveall",
)
# What the server turned down: a message over its rate ("rate_limited"), a move at an old
# version ("stale_version") or otherwise refused (the error code), a socket closed or refused
# with a close code ("4408" flooding, "4430" opened too often, ...).
logger = logging.getLogger(__name__)
REFUSALS = Counter("durak_refusals_total", "Messages and sockets refused, by code", ["code"])


def refused(code: str | int) -> None:
    REFUSALS.labels(str(code)).inc()


def directory() -> Path | None:
    """The directory the processes' metrics are kept in, if this is a multi-process run."""
    path = os.environ.get(DIRECTORY_VARIABLE)
    return Path(path) if path else None


class InfrastructureCollector(Collector):
    """At each scrape: the processes alive by role, and what waits in Redis (the channel
    layer's process inboxes, the Celery queue and its tasks taken but not done)."""

    def collect(self) -> Iterator[Metric]:
        alive = GaugeMetricFamily(
            "durak_role_processes_alive",
            "Processes alive by role, from heartbeats",
            labels=["role"],
        )
        age = GaugeMetricFamily(
            "durak_role_last_beat_age_seconds",
            "Seconds since the last heartbeat of any process of the role",
            labels=["role"],
        )
        now = time.time()
        for role, count in heartbeats.alive_by_role().items():
            alive.add_metric([role], count)
            last = heartbeats.last_beat(role)
            if last is not None:
                age.add_metric([role], now - last)
        yield alive
        yield age
        yield _channel_layer_depth()
        yield from _celery_depth()


def _channel_layer_depth() -> GaugeMetricFamily:
    """Messages waiting in each web process's channel-layer inbox, summed per Redis server:
    one SCAN for the inboxes (a few keys per process) and one ZCARD each."""
    depth = GaugeMetricFamily(
        "durak_channel_layer_waiting_messages",
        "Channel-layer messages waiting to be read, by Redis server",
        labels=["server"],
    )
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    pattern = f"{config['prefix']}specific.*!"
    for index, host in enumerate(config["hosts"]):
        client = redis.Redis.from_url(host["address"], socket_timeout=1, socket_connect_timeout=1)
        with client:
            inboxes = list(client.scan_iter(match=pattern, count=1000, _type="zset"))
            with client.pipeline(transaction=False) as pipe:
                for inbox in inboxes:
                    pipe.zcard(inbox)
                depth.add_metric([str(index)], sum(pipe.execute()))
    return depth


def _celery_depth() -> Iterator[GaugeMetricFamily]:
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    client = heartbeats.redis_client()
    with client.pipeline(transaction=False) as pipe:
        pipe.llen(queue)
        pipe.zcard("unacked_index")
        waiting, taken = pipe.execute()
    yield GaugeMetricFamily(
        "durak_celery_queue_length", "Celery tasks waiting in the queue", value=waiting
    )
    yield GaugeMetricFamily(
        "durak_celery_unacked_tasks", "Celery tasks taken by a worker and not yet done", value=taken
    )


class ScrapeCollectors(Collector):
    """What is counted at the scrape: the infrastructure's figures and the apps' collectors
    (``settings.METRICS_COLLECTORS``, each a few aggregate queries). One that fails (Redis or
    the database away) is logged and reported as down; the others and every process's metrics
    are still served. The scrape's database connection is given back after them."""

    def __init__(self) -> None:
        self.collectors: list[Collector] = [InfrastructureCollector()] + [
            import_string(path)() for path in settings.METRICS_COLLECTORS
        ]

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "durak_metrics_collector_up",
            "Whether a collector of scrape-time figures answered",
            labels=["collector"],
        )
        try:
            for collector in self.collectors:
                name = type(collector).__name__
                try:
                    collected = list(collector.collect())
                except Exception:
                    logger.exception("the %s metrics could not be collected", name)
                    up.add_metric([name], 0)
                    continue
                up.add_metric([name], 1)
                yield from collected
        finally:
            close_old_connections()
        yield up


def scrape_registry(path: Path) -> CollectorRegistry:
    """Everything one scrape reports: every process's metrics from `path`, and what is counted
    at the scrape."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(path))
    registry.register(ScrapeCollectors())
    return registry
