"""Each process's pool of database connections.

Page requests borrow pooled connections instead of opening one each (under ASGI Django serves
every request on a thread of its own, so a connection kept per thread was opened, at some 7 ms
of CPU, for every page), and a worker's forked pool process leaves its parent's pool alone.
"""

from __future__ import annotations

import json
import os

import psycopg
import pytest
from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.db import connection

import durak_site.celery  # noqa: F401 - what a worker imports before it forks its pool processes

pytestmark = pytest.mark.django_db(transaction=True)

# One request after another: the connections the pool keeps at least are all they need.
POOL_MIN = settings.DATABASES["default"]["OPTIONS"]["pool"]["min_size"]
REQUESTS = 24


async def get(application, path: str) -> bytes:
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": b"",
        "headers": [(b"host", b"localhost")],
    }
    request = ApplicationCommunicator(application, scope)
    await request.send_input({"type": "http.request", "body": b""})
    await request.receive_output(timeout=10)  # the response's start
    body = (await request.receive_output(timeout=10))["body"]
    await request.send_input({"type": "http.disconnect"})
    await request.wait(timeout=10)
    return body


@pytest.mark.asyncio
async def test_page_requests_borrow_pooled_connections(monkeypatch):
    # Every new connection starts at psycopg's connect: the pool calls the class's, Django
    # without a pool the module's.
    opened = []
    connect = psycopg.Connection.connect.__func__

    def counted_connect(cls, *args, **kwargs):
        opened.append(1)
        return connect(cls, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(counted_connect))
    monkeypatch.setattr(psycopg, "connect", psycopg.Connection.connect)
    application = get_asgi_application()
    for _request in range(REQUESTS):
        # The database answered each request (the other checks need processes not run here).
        assert json.loads(await get(application, "/healthz"))["database"] == "ok"
    assert len(opened) <= POOL_MIN, f"{len(opened)} connections opened for {REQUESTS} requests"


def test_a_forked_pool_process_leaves_its_parents_connections_open():
    connection.ensure_connection()
    connection.close()  # back to the pool, idle
    connection.pool.check()  # connections that died before (an earlier test's restore) go now
    lost = connection.pool.get_stats().get("connections_lost", 0)
    child = os.fork()
    if child == 0:
        # What Celery does in each new pool process: close the database pool it inherited.
        try:
            connection.close_pool()
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    connection.pool.check()  # each idle connection: still open and answering?
    assert connection.pool.get_stats().get("connections_lost", 0) == lost
