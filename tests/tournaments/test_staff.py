"""Staff: tournaments made in the admin and from templates, cancelled there, and exported."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from durak_site.audit.models import StaffAction
from tests.players import create_player, create_staff
from tournaments import services
from tournaments.models import Entry, Kind, Template, Tournament
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db


def test_a_daily_template_makes_each_arena_once_within_its_notice():
    template = Template.objects.create(
        name="Вечерняя арена",
        kind=Kind.ARENA,
        minutes=30,
        buy_in=10_000,
        fee=500,
        prize_percentages=[50, 30, 20],
        local_time=time(20, 0),
        announce_hours=24,
    )
    local = timezone.localtime(timezone.now())
    now = timezone.make_aware(datetime.combine(local.date(), time(12, 0)))
    assert services.templates_materialise(now=now) == 1
    assert services.templates_materialise(now=now) == 0, "a repeat makes nothing"
    made = Tournament.objects.get(template=template)
    assert timezone.localtime(made.starts_at).time() == time(20, 0)
    assert (made.kind, made.minutes, made.buy_in, made.fee) == (Kind.ARENA, 30, 10_000, 500)
    assert services.templates_materialise(now=now + timedelta(hours=9)) == 1  # the next day's
    template.weekdays = [(local.weekday() + 3) % 7]
    template.save()
    assert services.templates_materialise(now=now + timedelta(hours=9)) == 0


def test_a_sit_and_go_template_keeps_one_open_for_registration():
    Template.objects.create(
        name="SNG 6", kind=Kind.SIT_AND_GO, seats=6, table_size=6, prize_percentages=[65, 35]
    )
    assert services.templates_materialise(now=timezone.now()) == 1
    assert services.templates_materialise(now=timezone.now()) == 0
    assert Tournament.objects.get().seats == 6


def test_staff_cancel_in_the_admin_returns_every_entry_and_exports_the_entries(client):
    staff = create_staff()
    client.force_login(staff)
    tournament = Tournament.objects.create(
        name="Отмена",
        kind=Kind.ARENA,
        starts_at=timezone.now() + timedelta(hours=1),
        minutes=30,
        buy_in=2_000,
        fee=100,
        prize_percentages=[100],
    )
    players = [create_player(balance=10_000) for _ in range(2)]
    for user in players:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    change = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
    assert client.get(change).status_code == 200
    response = client.post(change, {"name": "Отмена", "cancel_reason": "", "cancel_now": "on"})
    assert (
        response.status_code == 200
        and "reason" in response.content.decode().lower()
        or ("причин" in response.content.decode())
    )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING
    client.post(change, {"name": "Отмена", "cancel_reason": "сбой", "cancel_now": "on"})
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert all(user_balance(user=user) == 10_000 for user in players)
    assert StaffAction.objects.filter(action="tournaments.cancel", staff=staff).count() == 1
    export = client.post(
        reverse("admin:tournaments_tournament_export"),
        {"format": "1", "resource": "0"},
    )
    assert export.status_code == 200
    body = export.content.decode("utf-8-sig")
    assert all(user.username in body for user in players)
    assert Entry.objects.filter(refund__isnull=False).count() == 2
