"""Players and staff for the wallet tests."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model

from wallet import services

_numbers = itertools.count(1)


@pytest.fixture
def make_user(db):
    def make(*, balance: int = 0, is_staff: bool = False, nickname: str | None = None):
        number = next(_numbers)
        nickname = nickname or f"player{number}"
        user = get_user_model().objects.create_user(
            username=nickname,
            email=f"{nickname}@example.com",
            password=None,
            is_staff=is_staff,
        )
        if balance:
            services.deposit(
                user=user,
                amount=balance,
                idempotency_key=f"test-deposit:{user.pk}",
                initiated_by=None,
                memo="opening balance",
            )
        return user

    return make


@pytest.fixture
def staff(make_user):
    user = make_user(is_staff=True, nickname="cashier")
    user.is_superuser = True
    user.save()
    return user
