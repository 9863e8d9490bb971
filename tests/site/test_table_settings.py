"""Table settings: kept per player, changed one or several at a time, bad input changes nothing."""

import json

import pytest
from django.urls import reverse

from durak_site.accounts.models import TableSettings
from durak_site.accounts.services import table_settings_of
from tests.players import create_player

pytestmark = pytest.mark.django_db


def post(client, body):
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(reverse("table_settings"), data, content_type="application/json")


def test_defaults_until_changed_then_kept_per_player(client):
    anna, boris = create_player(), create_player()
    assert table_settings_of(user=anna)["hand_order"] == "rank"
    client.force_login(anna)
    response = post(client, {"hand_order": "suit", "sound": False, "card_size": "large"})
    assert response.status_code == 200
    assert response.json() == {
        "hand_order": "suit",
        "card_size": "large",
        "sound": False,
        "confirm_take": False,
        "motion": "normal",
        "notifications": False,
    }
    assert table_settings_of(user=anna)["sound"] is False
    assert table_settings_of(user=boris)["sound"] is True
    assert post(client, {"motion": "off"}).json()["hand_order"] == "suit"


@pytest.mark.parametrize(
    "body",
    [
        {"hand_order": "colour"},
        {"sound": "yes"},
        {"card_size": 3},
        {"is_staff": True},
        {"motion": "off", "sound": 1},
        ["sound"],
        "not json",
    ],
)
def test_bad_settings_are_refused_and_change_nothing(client, body):
    player = create_player()
    client.force_login(player)
    post(client, {"motion": "fast"})
    response = post(client, body)
    assert response.status_code == 400
    assert response.json()["errors"]
    assert table_settings_of(user=player)["motion"] == "fast"
    assert TableSettings.objects.filter(user=player).count() == 1
    player.refresh_from_db()
    assert not player.is_staff


def test_only_a_logged_in_player_may_post(client):
    assert post(client, {"sound": False}).status_code == 302
    assert client.get(reverse("table_settings")).status_code in (302, 405)
