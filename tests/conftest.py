"""Shared fixtures: the real embedded PostgreSQL and Redis are started once per run."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache

from durak_site.backends import rate_limits
from durak_site.ops import embedded


def pytest_configure(config: pytest.Config) -> None:
    embedded.start()


TESTS_DIR = Path(__file__).resolve().parent
# Every test in these folders carries the folder's marker.
FOLDER_MARKERS = {"e2e": "e2e", "resilience": "resilience", "cluster": "cluster"}
# Markers whose tests run only when asked for by name (``./dev test -m cluster``).
ON_REQUEST_MARKERS = ("cluster",)
# The fixtures that start server processes (Daphne, Celery, the whole platform): a test that
# uses one is `live`.
SERVER_FIXTURES = frozenset(
    {
        "daphne_server",
        "celery_worker",
        "platform",
        "web",
        "worker",
        "server",
        "reporting_server",
        "proxied_server",
        "proxied",
        "fast_server",
        "cluster",
    }
)
# The time limit of a test that starts servers or is marked slow, unless it sets its own: the
# first test of a session's servers also waits for them to start, and none waits longer inside
# than a backup's dump and restore do. Every other test has pyproject.toml's limit.
LONG_TEST_TIMEOUT_SECONDS = 600
LONG_MARKERS = ("e2e", "live", "resilience", "slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by its folder and by the server fixtures it uses; run the browser tests
    last, so every quicker result is known first."""
    for item in items:
        folder = item.path.relative_to(TESTS_DIR).parts[0]
        if folder in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[folder])
        if SERVER_FIXTURES & set(item.fixturenames):
            item.add_marker("live")
        long = any(item.get_closest_marker(marker) for marker in LONG_MARKERS)
        if long and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(LONG_TEST_TIMEOUT_SECONDS))
    asked = config.getoption("markexpr") or ""
    left_out = [
        item
        for item in items
        if any(
            item.get_closest_marker(marker) and marker not in asked for marker in ON_REQUEST_MARKERS
        )
    ]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item not in left_out]
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate-limit counters and presence live in the real Redis cache: start each test clean.

    Only the cache's own keys are removed: other data in the same Redis (the channel layer's
    groups, which a running server joined once at its start) stays untouched.
    """
    client = cache._cache.get_client(write=True)
    for key in client.scan_iter(match=cache.make_key("*"), count=1000):
        client.delete(key)
    rate_limits.forget_empty()
    yield
