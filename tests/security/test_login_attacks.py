"""Logins cannot be brute-forced or used to lock others out, and nicknames cannot pass for
someone else's (docs/security.md)."""

from __future__ import annotations

import contextlib
import importlib
import io
from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from durak_site.ops.launcher import proxy_arguments
from tests.players import PASSWORD, create_player
from tests.security.conftest import Browser
from tests.servers import BASE_DIR, LiveServer, server_env

pytestmark = pytest.mark.django_db(transaction=True)

User = get_user_model()


@pytest.fixture(scope="module")
def proxied(django_db_setup, django_db_blocker) -> Iterator[LiveServer]:
    """Daphne as ./dev run starts it behind one reverse proxy (docs/deployment.md)."""
    with django_db_blocker.unblock():
        env = server_env(TRUSTED_PROXY_COUNT="1")
    live = LiveServer(
        env, BASE_DIR / "test-artifacts" / "security-proxied.log", tuple(proxy_arguments(env))
    )
    live.start()
    try:
        yield live
    finally:
        live.close()


def test_clients_behind_the_proxy_have_their_own_login_limits(proxied):
    players = [create_player(), create_player()]
    attacker = Browser(proxied, forwarded_for="203.0.113.7")
    for number in range(12):
        attacker.submit("/accounts/login/", {"login": f"x{number}@example.com", "password": "no"})
    # allauth's limit of failed logins per client address: even a right password fails now.
    assert attacker.log_in(players[0])[0] == 200
    honest = Browser(proxied, forwarded_for="203.0.113.8")
    assert honest.log_in(players[1])[0] == 302


def _staff_login(browser: Browser, staff, password: str) -> int:
    """The admin's login is the site's (allauth's); 302 on to the second factor when right."""
    return browser.submit(
        "/accounts/login/?next=/admin/", {"login": staff.email, "password": password}
    )[0]


def test_the_staff_login_locks_an_address_and_nickname_pair_only(proxied):
    staff = create_player(is_staff=True)
    other_staff = create_player(is_staff=True)
    attacker = Browser(proxied, forwarded_for="203.0.113.9")
    wrong = [_staff_login(attacker, staff, "wrong") for _ in range(6)]
    assert wrong[:4] == [200] * 4  # the form again, with its error
    # Locked for this pair even with the right password: guessing on is pointless.
    assert _staff_login(attacker, staff, PASSWORD) in {200, 429}
    # The same member of staff from his own address, and another from the attacker's, log in.
    assert _staff_login(Browser(proxied, forwarded_for="203.0.113.10"), staff, PASSWORD) == 302
    assert _staff_login(attacker, other_staff, PASSWORD) == 302


LOOK_ALIKES = {
    "Аdmin": "Cyrillic А among Latin letters",
    "𝓪𝓭𝓶𝓲𝓷": "mathematical script letters",
    "ａｄｍｉｎ": "fullwidth letters",
    "AdmIn": "a capital I for l",
    "ㅤadmin": "a Hangul filler",
    "adm\u200bin": "a zero-width space",
    "player１２": "fullwidth digits",
}


@pytest.mark.parametrize("nickname", LOOK_ALIKES, ids=LOOK_ALIKES.values())
def test_a_look_alike_nickname_is_refused_at_sign_up(server, nickname):
    create_player(nickname="admin")
    create_player(nickname="player12")
    browser = Browser(server)
    status, page, _ = browser.submit(
        "/accounts/signup/",
        {
            "email": "impostor@example.com",
            "username": nickname,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "date_of_birth": "1990-05-17",
        },
    )
    assert status == 200 and "errorlist" in page
    assert not User.objects.filter(email="impostor@example.com").exists()


def test_a_nickname_in_one_alphabet_is_accepted_in_its_normal_form(server):
    browser = Browser(server)
    status, _page, _ = browser.submit(
        "/accounts/signup/",
        {
            "email": "ivan@example.com",
            "username": "Иван_１９",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "date_of_birth": "1990-05-17",
        },
    )
    assert status == 302
    assert User.objects.get(email="ivan@example.com").username == "Иван_19"


def test_the_migration_reports_existing_look_alikes():
    migration = importlib.import_module("durak_site.accounts.migrations.0003_nickname_key")
    first = create_player(nickname="admin")
    second = create_player(nickname="second")
    # As the nicknames were before the migration: a look-alike taken when nothing checked it.
    User.objects.filter(pk=second.pk).update(username="Аdmin", nickname_key="before")
    report = io.StringIO()
    # The models as the migration sees them.
    state = MigrationLoader(connection).project_state(("accounts", "0003_nickname_key"))
    with contextlib.redirect_stdout(report):
        migration.fill_keys(state.apps, None)
    assert "'Аdmin'" in report.getvalue() and "'admin'" in report.getvalue()
    keys = dict(User.objects.values_list("pk", "nickname_key"))
    assert keys[second.pk] == f"{keys[first.pk]}#{second.pk}"
