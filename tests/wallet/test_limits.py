"""Limits a player sets for himself and breaks from play, checked under the wallet's lock."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from wallet import deposits, limits, services, withdrawals
from wallet.models import Payment, PlayerLimit, SelfExclusion

pytestmark = pytest.mark.django_db

CASHIER = override_settings(
    PAYMENTS_TEST_MODE=True, DEPOSIT_MIN=100_00, DEPOSIT_MAX=10_000_00, WITHDRAWAL_MIN=100_00
)


@pytest.fixture(autouse=True)
def _cashier_settings():
    with CASHIER:
        yield


def start(user, amount):
    return deposits.deposit_start(
        user=user, amount=amount, provider_code="test", site_url="https://durak.example"
    )


def value_now(user, kind):
    return limits.limits_of(user=user)[kind].value


def mature(user, kind):
    """Let the 24 hours of a pending raise pass."""
    PlayerLimit.objects.filter(user=user, kind=kind, pending_from__isnull=False).update(
        pending_from=timezone.now() - timedelta(seconds=1)
    )


def test_a_lower_limit_applies_at_once_and_a_higher_one_after_24_hours(make_user):
    player = make_user()
    kind = PlayerLimit.Kind.DEPOSIT_DAY
    limits.limit_set(user=player, kind=kind, value=1_000_00)
    assert value_now(player, kind) == 1_000_00
    limits.limit_set(user=player, kind=kind, value=500_00)
    assert value_now(player, kind) == 500_00

    before = timezone.now()
    limits.limit_set(user=player, kind=kind, value=2_000_00)
    state = limits.limits_of(user=player)[kind]
    assert (state.value, state.pending_value) == (500_00, 2_000_00)
    assert (
        before + timedelta(hours=24) <= state.pending_from <= timezone.now() + timedelta(hours=24)
    )
    mature(player, kind)
    assert value_now(player, kind) == 2_000_00


def test_removing_a_limit_is_a_raise_and_lowering_again_cancels_a_waiting_raise(make_user):
    player = make_user()
    kind = PlayerLimit.Kind.LOSS_WEEK
    limits.limit_set(user=player, kind=kind, value=300_00)
    limits.limit_set(user=player, kind=kind, value=None)
    assert value_now(player, kind) == 300_00
    limits.limit_set(user=player, kind=kind, value=200_00)
    state = limits.limits_of(user=player)[kind]
    assert (state.value, state.pending_from) == (200_00, None)
    mature(player, kind)
    assert value_now(player, kind) == 200_00


@pytest.mark.parametrize("value", [0, -5, 1.5, "10"])
def test_a_limit_must_be_a_positive_whole_number(make_user, value):
    with pytest.raises(services.InvalidCommand):
        limits.limit_set(user=make_user(), kind=PlayerLimit.Kind.DEPOSIT_DAY, value=value)
    with pytest.raises(services.InvalidCommand):
        limits.limit_set(user=make_user(), kind="bogus", value=100)


def test_deposits_beyond_a_limit_are_refused_and_open_payments_count(make_user):
    player = make_user()
    limits.limit_set(user=player, kind=PlayerLimit.Kind.DEPOSIT_WEEK, value=1_000_00)
    start(player, 600_00)
    with pytest.raises(limits.LimitReached):
        start(player, 400_01)
    failed = start(player, 400_00)
    Payment.objects.filter(pk=failed.payment.pk).update(status=Payment.Status.FAILED)
    start(player, 400_00)  # a failed payment no longer counts
    assert Payment.objects.filter(user=player).count() == 3


def test_an_old_deposit_leaves_the_days_window(make_user):
    player = make_user()
    limits.limit_set(user=player, kind=PlayerLimit.Kind.DEPOSIT_DAY, value=500_00)
    old = start(player, 500_00).payment
    Payment.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=1, seconds=1)
    )
    start(player, 500_00)


def test_a_break_stops_deposits_and_stakes_but_not_withdrawals(make_user):
    player = make_user(balance=1_000_00)
    limits.break_start(user=player, length="7d")
    with pytest.raises(limits.SelfExcluded):
        start(player, 100_00)
    with pytest.raises(limits.SelfExcluded), transaction.atomic():
        limits.check_stake(user=player, amount=100_00)
    withdrawal = withdrawals.withdrawal_request(
        user=player, amount=300_00, payout_details="card", request_key="k"
    )
    assert withdrawal.status == "pending"


def test_a_break_cannot_be_shortened_only_lengthened(make_user):
    player = make_user()
    limits.break_start(user=player, length="7d")
    with pytest.raises(services.InvalidCommand):
        limits.break_start(user=player, length="24h")
    longer = limits.break_start(user=player, length="30d")
    assert limits.active_break(user=player) == longer
    forever = limits.break_start(user=player, length="forever")
    assert limits.active_break(user=player) == forever
    with pytest.raises(services.InvalidCommand):
        limits.break_start(user=player, length="30d")


def test_an_ended_break_no_longer_stops_anything(make_user):
    player = make_user()
    ended = limits.break_start(user=player, length="24h")
    SelfExclusion.objects.filter(pk=ended.pk).update(ends_at=timezone.now())
    assert limits.active_break(user=player) is None
    start(player, 100_00)


def test_the_loss_limit_counts_held_stakes_and_game_results(make_user):
    player = make_user(balance=10_000_00)
    limits.limit_set(user=player, kind=PlayerLimit.Kind.LOSS_DAY, value=1_000_00)
    with transaction.atomic():
        limits.check_stake(user=player, amount=1_000_00)
    services.stake_hold(user=player, table_id=1, amount=600_00, idempotency_key="h1")
    with pytest.raises(limits.LimitReached), transaction.atomic():
        limits.check_stake(user=player, amount=400_01)
    services.stake_release(user=player, table_id=1, amount=600_00, idempotency_key="r1")
    with transaction.atomic():
        limits.check_stake(user=player, amount=1_000_00)


@pytest.mark.django_db(transaction=True)
def test_two_deposits_at_the_same_moment_cannot_both_pass_a_limit(make_user):
    player = make_user()
    limits.limit_set(user=player, kind=PlayerLimit.Kind.DEPOSIT_DAY, value=1_000_00)
    barrier = threading.Barrier(6, timeout=30)
    outcomes: list[str] = []

    def deposit() -> None:
        try:
            barrier.wait()
            start(player, 400_00)
            outcomes.append("started")
        except limits.LimitReached:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=deposit) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused"] * 4 + ["started"] * 2


# --- the page --------------------------------------------------------------------------------


def test_the_limits_page_saves_limits_and_starts_a_break(client, make_user):
    player = make_user()
    client.force_login(player)
    page = client.get("/wallet/limits/")
    assert page.status_code == 200
    response = client.post(
        "/wallet/limits/",
        {"save_limits": "1", "deposit_day": "500.00", "loss_week": "", "play_reminder": "60"},
    )
    assert response.status_code == 302
    assert value_now(player, PlayerLimit.Kind.DEPOSIT_DAY) == 500_00
    assert value_now(player, PlayerLimit.Kind.PLAY_REMINDER) == 60
    client.post("/wallet/limits/", {"save_limits": "1", "deposit_day": "900.00"})
    html = client.get("/wallet/limits/").content.decode()
    assert 'data-testid="pending-deposit_day"' in html and "900,00" in html
    assert client.post("/wallet/limits/", {"take_break": "1", "length": "24h"}).status_code == 200
    assert limits.active_break(user=player) is None  # not confirmed
    client.post("/wallet/limits/", {"take_break": "1", "length": "24h", "confirm": "on"})
    assert limits.active_break(user=player) is not None
    assert 'data-testid="break-active"' in client.get("/wallet/limits/").content.decode()
    refused = client.post("/wallet/deposit/", {"amount": "150.00", "provider": "test"})
    assert "перерыв" in refused.content.decode()


def test_pages_carry_the_play_reminder_only_for_a_player_who_set_one(client, make_user):
    player = make_user()
    client.force_login(player)
    assert 'data-testid="play-reminder"' not in client.get("/wallet/").content.decode()
    limits.limit_set(user=player, kind=PlayerLimit.Kind.PLAY_REMINDER, value=45)
    html = client.get("/wallet/").content.decode()
    assert 'data-minutes="45" data-testid="play-reminder" hidden' in html
