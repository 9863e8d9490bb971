"""A web process freezes what its start-up loaded, so that no full collection walks it again, and
collects its garbage less often than Python would, so that the sockets' work pauses less."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.servers import BASE_DIR, server_env

# The check runs a web process's start-up in a process of its own.
pytestmark = pytest.mark.slow

# Django, the models and the routes alone make well over this many objects.
STARTUP_OBJECTS = 50_000
PYTHON_DEFAULT_THRESHOLDS = (700, 10, 10)


def web_process_collector() -> dict:
    """The collector's state in a fresh process once it has loaded the web application."""
    probe = (
        "import gc, json; before = gc.get_freeze_count(); import durak_site.asgi as web; "
        "print(json.dumps({'before': before, 'frozen': gc.get_freeze_count(), "
        "'thresholds': gc.get_threshold(), 'configured': web.COLLECTOR_THRESHOLDS}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=BASE_DIR,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_the_web_process_freezes_its_startup_objects_and_collects_less_often():
    collector = web_process_collector()
    assert collector["before"] == 0 and collector["frozen"] > STARTUP_OBJECTS
    thresholds = tuple(collector["thresholds"])
    assert thresholds == tuple(collector["configured"])
    # Each generation waits at least as long as Python's default would, the youngest longer.
    assert thresholds[0] > PYTHON_DEFAULT_THRESHOLDS[0]
    assert all(
        ours >= default for ours, default in zip(thresholds, PYTHON_DEFAULT_THRESHOLDS, strict=True)
    )
