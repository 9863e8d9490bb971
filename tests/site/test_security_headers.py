"""Pages carry a strict Content-Security-Policy and none of the inline code it would block."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services
from tests.players import create_player, give_second_factor

pytestmark = pytest.mark.django_db

INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(r"<[^>]+\sstyle\s*=", re.IGNORECASE)
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)


@pytest.fixture
def player(client):
    user = create_player(balance=10_000, nickname="guard")
    client.force_login(user)
    return user


def page_urls(player) -> list[str]:
    table = services.table_create(user=player, stake=100, seats=2)
    return [
        reverse("home"),
        reverse("lobby"),
        reverse("table_detail", args=[table.pk]),
        reverse("wallet"),
        reverse("profile"),
        reverse("leaderboard"),
        reverse("rules"),
        reverse("account_email"),
    ]


def test_every_page_has_the_policy_and_no_inline_code_it_would_block(client, player):
    for url in page_urls(player):
        response = client.get(url)
        assert response.status_code == 200, url
        policy = response["Content-Security-Policy"]
        assert "script-src 'self';" in policy and "style-src 'self';" in policy, url
        assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
        assert response["X-Content-Type-Options"] == "nosniff"
        html = response.content.decode()
        assert not INLINE_HANDLER.search(html), url
        assert not STYLE_ATTRIBUTE.search(html), url
        for attributes in SCRIPT_TAG.findall(html):
            # Either a file of the site, or data that is never executed.
            assert "src=" in attributes or 'type="application/json"' in attributes, (
                url,
                attributes,
            )


def test_the_policy_lets_the_page_reach_its_own_sockets_only(client, player):
    policy = client.get(reverse("lobby"), HTTP_HOST="localhost")["Content-Security-Policy"]
    assert "connect-src 'self' ws://localhost;" in policy


def test_the_admin_keeps_its_own_headers(client, player):
    player.is_staff = player.is_superuser = True
    player.save()
    give_second_factor(player)
    response = client.get("/admin/")
    assert response.status_code == 200
    assert "Content-Security-Policy" not in response
