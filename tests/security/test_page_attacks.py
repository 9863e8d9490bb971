"""Pages fail safely and show only what their visitor may see (docs/security.md)."""

from __future__ import annotations

import sys

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.views.debug import technical_500_response

from games import services
from games.models import Game, Table
from games.views import TABLES_BURST
from tests.games.conftest import OPENING_BALANCE, STAKE
from tests.players import create_player
from tests.security.conftest import Browser, play
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("path", ["/players/x%00y/", "/table/1%00/", "/%00"])
def test_a_nul_byte_in_the_path_is_not_found(server, path):
    assert Browser(server).get(path)[0] == 404


def test_a_nul_byte_in_the_query_is_refused(server):
    assert Browser(server).get("/lobby/?invite=a%00b")[0] == 400


def _debug_error_page() -> str:
    """Django's debug page for a failed request (whose frames hold no secret of their own)."""
    request = RequestFactory().get("/", HTTP_HOST="localhost")
    request.META["DATABASE_URL"] = settings.DATABASE_URL  # as a development server passes it
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        return technical_500_response(request, *sys.exc_info()).content.decode()


def test_the_debug_error_page_hides_every_address_that_may_hold_a_password():
    page = _debug_error_page()
    assert "boom" in page  # the debug page itself
    for secret in [settings.DATABASE_URL, settings.REDIS_URL]:
        assert secret not in page


def _finished_game(users: list, *, private: bool) -> Game:
    table = services.table_create(user=users[0], stake=STAKE, seats=len(users), private=private)
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user, invite_code=table.invite_code)
    assert play(table, 5000) < 5000
    return Game.objects.get(table=table)


def test_private_games_show_on_profiles_only_to_their_players_and_staff(server):
    players = [create_player(balance=OPENING_BALANCE) for _ in range(2)]
    public = _finished_game(players, private=False)
    private = _finished_game(players, private=True)
    profile = f"/players/{players[0].username}/"

    def history(browser: Browser) -> tuple[bool, bool]:
        status, page, _ = browser.get(profile)
        assert status == 200
        return f"/game/{public.pk}/" in page, f"/game/{private.pk}/" in page

    assert history(Browser(server)) == (True, False)  # anonymous
    stranger = Browser(server)
    stranger.log_in(create_player())
    assert history(stranger) == (True, False)
    for viewer in [players[0], players[1], create_player(is_staff=True)]:
        browser = Browser(server)
        browser.log_in(viewer)
        assert history(browser) == (True, True)


def test_opening_tables_is_rate_limited_per_user(server):
    player = create_player(balance=OPENING_BALANCE)
    browser = Browser(server)
    browser.log_in(player)
    form = {"stake": str(STAKE // 100), "seats": "2", "turn_seconds": "30", "throw_seconds": "10"}
    opened = 0
    for _ in range(int(TABLES_BURST) + 3):
        status, _page, headers = browser.submit("/tables/new/", form, form_page="/lobby/")
        assert status == 302
        if "/table/" not in headers["Location"]:
            break
        opened += 1
        table_id = int(headers["Location"].rstrip("/").split("/")[-1])
        left = browser.submit(f"/table/{table_id}/leave/", {}, form_page=f"/table/{table_id}/")
        assert left[0] == 302
    assert opened == TABLES_BURST
    # Each round that was allowed wrote its hold and its return; the refused one wrote nothing.
    assert Table.objects.filter(created_by=player).count() == TABLES_BURST
    assert user_balance(user=player) == OPENING_BALANCE
