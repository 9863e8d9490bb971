"""Players and staff for the wallet tests."""

from __future__ import annotations

import pytest

from tests.players import create_player


@pytest.fixture
def make_user(db):
    return create_player


@pytest.fixture
def staff(make_user):
    user = make_user(is_staff=True, nickname="cashier")
    user.is_superuser = True
    user.save()
    return user
