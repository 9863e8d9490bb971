"""The table's spoken sentences and its keyboard help come in the page's language."""

from __future__ import annotations

import json
import re

import pytest

from tests.games.test_services import seated_game

pytestmark = pytest.mark.django_db


def ui_strings(html: str) -> dict:
    found = re.search(r'<script id="ui-strings" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def test_the_table_speaks_russian_by_default_and_english_when_chosen(client):
    game, users = seated_game(2)
    client.force_login(users[0])
    page = client.get(f"/table/{game.table_id}/")
    russian = ui_strings(page.content.decode())
    assert russian["say_defend"] == "%(name)s отбивается: %(attack)s — %(card)s"
    assert russian["keys_take"] == "Взять карты"
    assert russian["key_space"] == "Пробел"
    assert 'id="announcer" data-testid="announcer" aria-live="polite"' in page.content.decode()

    client.cookies["django_language"] = "en"
    english = ui_strings(client.get(f"/table/{game.table_id}/").content.decode())
    assert english["say_defend"] == "%(name)s beats: %(attack)s with %(card)s"
    assert english["keys_take"] == "Take the cards"
    assert english["card_name"] == "%(rank)s of %(suit)s"
