"""Shared fixtures: the real embedded PostgreSQL and Redis are started once per run."""

from __future__ import annotations

import pytest

from durak_site import embedded


def pytest_configure(config: pytest.Config) -> None:
    embedded.start()
