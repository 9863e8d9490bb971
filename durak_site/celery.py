import logging
import os
import sys

from celery import Celery, signals
from celery.app.amqp import AMQP
from celery.apps import worker as celery_worker
from kombu import Connection
from kombu.transport import redis

from durak_site.ops import heartbeats
from durak_site.ops import json_logs as site_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")

# Pauses between tries to reach a lost broker: the worker is back within a second of Redis,
# where kombu's own pauses grow by 2 s a try up to 30 s.
RECONNECT_INTERVALS = {"interval_start": 0.2, "interval_step": 0.2, "interval_max": 1.0}


class BrokerConnection(Connection):
    """A broker connection that retries often: a worker away from Redis fires no deadline."""

    def ensure_connection(self, *args, **kwargs) -> Connection:
        return super().ensure_connection(*args, **(RECONNECT_INTERVALS | kwargs))


class BrokerProtocol(AMQP):
    Connection = BrokerConnection


app = Celery("durak_site", amqp=BrokerProtocol)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class RedisTransport(redis.Transport):
    """Kombu's Redis transport, whose channels can always reach their broker again.

    On a broken broker connection Celery 5.7 detaches the transport from its connection
    (``client = None``) before closing the channel, and the channel then needs the connection's
    address to hand its unacknowledged messages back, or to acknowledge a task that finishes
    after the reconnect: ``AttributeError: 'NoneType' object has no attribute 'hostname'``
    stops the worker. Keeping the address lets both go through (or fail as connection errors,
    which Celery expects) and the worker reconnects.
    """

    @property
    def client(self) -> Connection:
        return self._client

    @client.setter
    def client(self, value: Connection | None) -> None:
        if value is not None:
            self._client = value


@signals.setup_logging.connect
def log_as_json(**kwargs) -> None:
    """Worker and beat log through the site's LOGGING (JSON lines), not Celery's own format."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)


def _say_as_json(message: str, stream=sys.__stderr__) -> None:
    """The worker's shutdown notes, which it writes straight to the stream from its signal
    handlers (where logging's locks could deadlock), as a JSON line written the same way."""
    record = logging.makeLogRecord(
        {"msg": message, "levelname": "WARNING", "levelno": logging.WARNING, "name": __name__}
    )
    os.write(stream.fileno(), (site_logging.JsonFormatter().format(record) + "\n").encode())


celery_worker.safe_say = _say_as_json


@signals.task_prerun.connect
def forget_the_last_tasks_ids(**kwargs) -> None:
    """A task's log lines and error reports name only the ids it binds itself."""
    site_logging.unbind()


@signals.task_postrun.connect
def drop_broken_connections(**kwargs) -> None:
    """A task gives its database connection back to the process's pool (a broken one is
    dropped and replaced)."""
    from django.db import close_old_connections

    close_old_connections()


def forget_parent_database_pools() -> None:
    """A pool process forked from the worker starts a database pool of its own: Celery closes
    the inherited one in each new child, which would end the parent's open connections."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    DatabaseWrapper._connection_pools.clear()


os.register_at_fork(after_in_child=forget_parent_database_pools)


# This process's heartbeat (durak_site.ops.heartbeats), while it runs as a worker or as beat.
_beating: list[heartbeats.Beating] = []


@signals.worker_ready.connect
def worker_beats(**kwargs) -> None:
    _beating.append(heartbeats.Beating(heartbeats.WORKER))


@signals.beat_init.connect
def scheduler_beats(**kwargs) -> None:
    _beating.append(heartbeats.Beating(heartbeats.SCHEDULER))


@signals.worker_shutdown.connect
def stop_beating(**kwargs) -> None:
    while _beating:
        _beating.pop().stop()
