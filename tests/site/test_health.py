import time

import pytest
from django.urls import reverse

from durak_site.ops import heartbeats

pytestmark = pytest.mark.django_db


@pytest.fixture
def platform_alive():
    """Heartbeats of a whole platform: two web processes, a worker, beat and the deadline loop."""
    for role, names in {
        heartbeats.WEB: ["web-1", "web-2"],
        heartbeats.WORKER: ["worker-1"],
        heartbeats.SCHEDULER: ["beat-1"],
        heartbeats.DEADLINE_LOOP: ["worker-1"],
    }.items():
        for name in names:
            heartbeats.beat(role, name)


def test_healthz_reports_database_redis_and_every_role(client, platform_alive):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "redis": "ok",
        "worker": "ok",
        "deadlines": "ok",
        "web": "ok",
        "scheduler": "ok",
        "processes": {"web": 2, "worker": 1, "scheduler": 1},
    }


def test_healthz_fails_when_redis_is_unreachable(client, settings, platform_alive):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["redis"] == "fail"
    assert response.json()["database"] == "ok"


@pytest.mark.parametrize(
    ("dead", "failing"),
    [(heartbeats.WORKER, "worker"), (heartbeats.DEADLINE_LOOP, "deadlines")],
)
def test_healthz_fails_when_the_timers_are_not_served(client, platform_alive, dead, failing):
    heartbeats.forget(dead, "worker-1")
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body[failing]) == ("fail", "fail")
    assert body["database"] == body["redis"] == "ok"


def test_healthz_reports_a_dead_scheduler_while_the_timers_go_on(client, platform_alive):
    heartbeats.forget(heartbeats.SCHEDULER, "beat-1")
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json()["scheduler"] == "fail"
    assert response.json()["processes"]["scheduler"] == 0


def test_a_worker_killed_without_a_word_counts_no_more_once_its_beat_is_old(client, platform_alive):
    heartbeats.forget(heartbeats.WORKER, "worker-1")
    stale = time.time() - heartbeats.ALIVE_SECONDS - 1
    heartbeats.redis_client().zadd(heartbeats.key(heartbeats.WORKER), {"worker-2": stale})
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["worker"] == "fail"
    assert response.json()["processes"]["worker"] == 0
    assert heartbeats.last_beat(heartbeats.WORKER) == pytest.approx(stale)
