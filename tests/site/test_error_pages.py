"""Error pages: an outage of the database says to come back, in the player's words, and the
page answers again once the database is back; any other error gets a page of its own."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import Client
from django.urls import path, reverse

from durak_site.urls import handler500  # noqa: F401 - the error page of this URLconf too
from durak_site.urls import urlpatterns as site_urlpatterns
from tests.players import create_player


def broken_page(request):
    raise RuntimeError("a fault of the platform")


urlpatterns = [path("broken/", broken_page), *site_urlpatterns]


def closed_port() -> int:
    """A port where nothing listens: connecting to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def database_down() -> Iterator[None]:
    """Inside, this thread's connections go to a closed port; borrowing one fails within 1 s."""
    settings_dict = connection.settings_dict
    port, options = settings_dict["PORT"], settings_dict["OPTIONS"]
    connection.close()
    connection.close_pool()
    settings_dict["PORT"] = str(closed_port())
    settings_dict["OPTIONS"] = {**options, "pool": {**options["pool"], "timeout": 1}}
    try:
        yield
    finally:
        connection.close()
        connection.close_pool()
        settings_dict["PORT"], settings_dict["OPTIONS"] = port, options


@pytest.mark.django_db(transaction=True)
def test_a_page_during_a_database_outage_asks_to_come_back_and_answers_after():
    player = create_player()
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="ru")
    client.force_login(player)
    with database_down():
        response = client.get(reverse("lobby"))

    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    page = response.content.decode()
    assert "Игровые серверы ненадолго недоступны" in page
    assert "ваши партии и деньги сохранены" in page
    # It reloads itself, and nothing of the fault reaches the player.
    assert '<meta http-equiv="refresh" content="10">' in page
    assert "Traceback" not in page and "OperationalError" not in page
    assert client.get(reverse("lobby")).status_code == 200


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_an_unexpected_error_gets_a_page_in_the_players_words():
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en")
    response = client.get("/broken/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong" in page
    assert "a fault of the platform" not in page and "RuntimeError" not in page
    # Only an outage asks the browser to reload by itself.
    assert "refresh" not in page and not response.has_header("Retry-After")
