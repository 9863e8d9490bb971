"""A new member of staff in real Chromium: signed in through the site's login, sent to set up a
second factor before the admin opens, and let in once the authenticator app's code is given."""

from __future__ import annotations

import re

import pytest
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from playwright.sync_api import Page, expect

from tests.e2e.test_browser import DESKTOP, PHONE
from tests.players import PASSWORD, create_player, totp_code

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def submit(page: Page) -> None:
    page.locator("main form button[type=submit]").first.click()


def sign_in_to_the_admin(page: Page, live_url: str, staff) -> None:
    page.goto(f"{live_url}/admin/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.fill("input[name=login]", staff.email)
    page.fill("input[name=password]", PASSWORD)
    submit(page)


@pytest.mark.parametrize(("viewport", "width"), [(PHONE, 360), (DESKTOP, 1280)])
def test_staff_set_up_an_authenticator_app_before_the_admin_opens(
    browser, live_url, screenshot, off_loop, viewport, width
):
    staff = off_loop(
        create_player,
        nickname=f"newstaff{width}",
        is_staff=True,
        second_factor=False,
        verified_email=True,
    )
    page = browser.new_context(viewport=viewport, locale="ru-RU").new_page()
    page.set_default_timeout(10_000)
    sign_in_to_the_admin(page, live_url, staff)

    expect(page).to_have_url(re.compile(r"/accounts/2fa/\?next=%2Fadmin%2F"))
    expect(page.locator("h1")).to_have_text("Двухфакторная аутентификация")
    expect(page.get_by_text("настройте второй фактор входа")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"staff-second-factor-setup-{width}")

    page.locator("a[href='/accounts/2fa/totp/activate/']").click()
    page.fill("input[name=password]", PASSWORD)  # allauth asks for the password again first
    submit(page)
    expect(page.locator("img[src^='data:image/svg+xml']")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"staff-second-factor-totp-{width}")
    secret = page.locator("#authenticator_secret").input_value()
    page.fill("input[name=code]", totp_code(secret))
    submit(page)

    page.goto(f"{live_url}/admin/")
    expect(page).to_have_url(re.compile(r"^http://[^/?]+/admin/$"))
    expect(page.locator("#site-name")).to_be_visible()


def test_staff_add_a_passkey_and_sign_in_with_it_alone(browser, live_url, off_loop):
    staff = off_loop(create_player, nickname="keyholder", is_staff=True, verified_email=True)
    codes = off_loop(lambda: RecoveryCodes.activate(staff).get_unused_codes())
    # Passkeys belong to a host name, never to an address: the same server as "localhost".
    site = live_url.replace("127.0.0.1", "localhost")
    context = browser.new_context(viewport=DESKTOP, locale="ru-RU")
    page = context.new_page()
    page.set_default_timeout(10_000)
    # Chromium's virtual authenticator stands in for a phone or a security key.
    devtools = context.new_cdp_session(page)
    devtools.send("WebAuthn.enable")
    devtools.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    sign_in_to_the_admin(page, site, staff)
    page.fill("input[name=code]", totp_code())
    submit(page)
    expect(page).to_have_url(re.compile(r"^http://[^/?]+/admin/$"))

    page.goto(f"{site}/accounts/2fa/webauthn/add/")
    page.fill("input[name=code]", codes[0])  # the second factor again, before a new one
    submit(page)
    page.fill("input[name=name]", "laptop")
    page.check("input[name=passwordless]")
    page.locator("#mfa_webauthn_add").click()
    expect(page).not_to_have_url(re.compile(r"/webauthn/add/"))

    page.locator("form.logout button").click()
    page.goto(f"{site}/accounts/login/?next=/admin/")
    page.locator("#passkey_login").click()
    expect(page).to_have_url(re.compile(r"^http://[^/?]+/admin/$"))
    expect(page.locator("#site-name")).to_be_visible()
