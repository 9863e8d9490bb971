"""Shared fixtures: the real embedded PostgreSQL and Redis are started once per run."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache

from durak_site.backends import rate_limits
from durak_site.ops import embedded


def pytest_configure(config: pytest.Config) -> None:
    embedded.start()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the slow browser tests last, so every quicker result is known first."""
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate-limit counters and presence live in the real Redis cache: start each test clean.

    Only this run's key prefix is removed, so other data in the same Redis stays untouched.
    """
    client = cache._cache.get_client(write=True)
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    for key in client.scan_iter(match=f"{prefix}:*", count=1000):
        client.delete(key)
    rate_limits.forget_empty()
    yield
