import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_and_redis(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "redis": "ok"}


def test_healthz_fails_when_redis_is_unreachable(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["redis"] == "fail"
    assert response.json()["database"] == "ok"
