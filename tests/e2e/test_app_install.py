"""The installable app in real Chromium: the manifest and its icons, the service worker and its
offline page, the install hint, and the push opt-in on the profile."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from durak_site.push import vapid
from durak_site.push.models import PushSubscription
from tests.e2e.test_layout import PHONE, funded_player, log_in
from tests.players import create_player

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

IPHONE_SAFARI = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)
# Waits until the service worker controls the page and has kept what it keeps.
WORKER_READY = """async () => {
  const worker = navigator.serviceWorker;
  const registration = await worker.ready;
  if (!worker.controller) {
    await new Promise((resolve) => worker.addEventListener("controllerchange", resolve));
  }
  const names = await caches.keys();
  const kept = await (await caches.open(names[0])).keys();
  return {
    script: registration.active.scriptURL,
    scope: registration.scope,
    caches: names,
    kept: kept.map((request) => new URL(request.url).pathname),
  };
}"""


def test_the_manifest_names_the_app_in_russian_opens_the_lobby_and_has_every_icon(
    browser, live_url
):
    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    page = context.new_page()
    page.goto(f"{live_url}/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    response = page.request.get(f"{live_url}{href}")
    assert response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["name"] == "Дурак до завала"
    assert manifest["short_name"] == "Дурак"
    assert manifest["lang"] == "ru"
    assert manifest["start_url"] == "/lobby/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] == "#0f3d2e"
    assert page.locator("meta[name=theme-color]").get_attribute("content") == "#0f3d2e"
    sizes = {(icon["sizes"], icon.get("purpose", "any")) for icon in manifest["icons"]}
    assert sizes == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for icon in manifest["icons"]:
        image = page.request.get(f"{live_url}{icon['src']}")
        assert image.ok and image.headers["content-type"] == "image/png"
    context.close()


def test_the_service_worker_shows_the_offline_page_when_a_page_cannot_load(
    browser, live_url, screenshot
):
    player = funded_player("offline")
    page = log_in(browser, live_url, player, PHONE)
    page.goto(f"{live_url}/lobby/")
    worker = page.evaluate(WORKER_READY)
    assert worker["script"] == f"{live_url}/sw.js"
    assert worker["scope"] == f"{live_url}/"
    # It keeps the offline page and what it loads: no game page, no data.
    assert "/offline/" in worker["kept"]
    assert all(path == "/offline/" or path.startswith("/static/") for path in worker["kept"])
    assert page.request.get(f"{live_url}/sw.js").headers["service-worker-allowed"] == "/"

    page.context.set_offline(True)
    page.goto(f"{live_url}/profile/")
    expect(page.get_by_test_id("offline-page")).to_be_visible()
    expect(page.locator("h1")).to_have_text("Нет соединения")
    # Its styles came from the worker too: the card is drawn as on the site.
    card_background = page.get_by_test_id("offline-page").evaluate(
        "(node) => getComputedStyle(node).backgroundColor"
    )
    assert card_background == "rgb(255, 255, 255)"
    screenshot(page, "offline-phone")
    page.context.set_offline(False)
    page.get_by_role("link", name="Попробовать ещё раз").click()
    expect(page.get_by_test_id("profile-name")).to_have_text(player.username)
    page.context.close()


def test_iphone_safari_gets_the_share_steps_once_until_closed(browser, live_url, screenshot):
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale="ru-RU", user_agent=IPHONE_SAFARI
    )
    page = context.new_page()
    page.goto(f"{live_url}/")
    hint = page.get_by_test_id("install-hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("«Поделиться»")
    expect(hint).to_contain_text("«На экран «Домой»»")
    box = hint.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    screenshot(page, "install-hint-iphone")
    hint.get_by_role("button", name="Закрыть").click()
    expect(hint).to_be_hidden()
    page.goto(f"{live_url}/lobby/")
    expect(page.get_by_test_id("install-hint")).to_be_hidden()
    context.close()
    # Chromium (which offers its own prompt only to an installable site it judges worth it)
    # gets no Share steps.
    desktop = browser.new_context(viewport=PHONE, locale="ru-RU")
    other = desktop.new_page()
    other.goto(f"{live_url}/")
    expect(other.get_by_test_id("install-hint")).to_be_hidden()
    desktop.close()


def test_where_the_browser_offers_to_install_the_hint_has_a_button_that_asks_it(
    browser, live_url, screenshot
):
    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    page = context.new_page()
    page.goto(f"{live_url}/")
    hint = page.get_by_test_id("install-hint")
    expect(hint).to_be_hidden()
    # Chromium fires this only for a site it judges worth installing, after some use: the test
    # fires it as the browser would, with the browser's prompt standing in.
    page.evaluate(
        """() => {
          const offer = new Event("beforeinstallprompt", { cancelable: true });
          offer.prompt = async () => { window.installPrompted = true; };
          window.dispatchEvent(offer);
          window.installOfferTaken = offer.defaultPrevented;
        }"""
    )
    expect(hint.get_by_test_id("install-button")).to_be_visible()
    assert page.evaluate("window.installOfferTaken")  # the browser's own banner waits
    screenshot(page, "install-button-phone")
    hint.get_by_test_id("install-button").click()
    expect(hint).to_be_hidden()
    assert page.evaluate("window.installPrompted")
    context.close()


def test_the_opt_in_says_so_when_the_browser_cannot_subscribe(browser, live_url):
    player = create_player(nickname="nopush", verified_email=True)
    page = log_in(browser, live_url, player, PHONE)
    page.context.grant_permissions(["notifications"], origin=live_url)
    posted = []
    page.on(
        "request",
        lambda request: posted.append(request.method) if "/push/" in request.url else None,
    )
    page.goto(f"{live_url}/profile/")
    toggle = page.get_by_test_id("push-toggle")
    expect(toggle).to_have_text("Уведомлять о ходе")
    toggle.click()
    # Headless Chromium reaches no vendor's push service here, so the browser itself refuses
    # the subscription: the page says so and posts nothing.
    expect(page.locator("[data-push-status=failed]")).to_be_visible()
    expect(toggle).to_have_text("Уведомлять о ходе")
    assert posted == []
    assert not PushSubscription.objects.exists()
    page.context.close()


# The browser's side of a push service, in the page: PushManager hands out the subscription
# a local push service would give (the vendor's cannot be reached from headless Chromium).
LOCAL_PUSH_MANAGER = """(() => {
  const subscription = {
    endpoint: "http://127.0.0.1:9/push/phone",
    toJSON() {
      return {
        endpoint: this.endpoint,
        expirationTime: null,
        keys: { p256dh: "%(p256dh)s", auth: "%(auth)s" },
      };
    },
    async unsubscribe() { sessionStorage.removeItem("subscribed"); return true; },
  };
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.subscribedWith = btoa(String.fromCharCode(...key))
      .replace(/[+]/g, "-").replace(/[/]/g, "_").replace(/=+$/, "");
    sessionStorage.setItem("subscribed", "1");
    return subscription;
  };
  PushManager.prototype.getSubscription = async function () {
    return sessionStorage.getItem("subscribed") ? subscription : null;
  };
})();"""


def test_the_opt_in_posts_the_devices_subscription_and_takes_it_back(browser, live_url, screenshot):
    player = create_player(nickname="pushme", verified_email=True)
    page = log_in(browser, live_url, player, PHONE)
    page.context.grant_permissions(["notifications"], origin=live_url)
    keys = {"p256dh": vapid.generate()[1], "auth": vapid.b64url(b"0123456789abcdef")}
    page.context.add_init_script(LOCAL_PUSH_MANAGER % keys)
    page.goto(f"{live_url}/profile/")
    toggle = page.get_by_test_id("push-toggle")
    expect(toggle).to_have_text("Уведомлять о ходе")
    screenshot(page, "push-optin-phone")
    toggle.click()
    expect(page.get_by_test_id("push-on")).to_be_visible()
    expect(toggle).to_have_text("Не уведомлять")
    # Subscribed with the site's VAPID key, stored for this player in the page's language.
    site_key = page.get_by_test_id("push-optin").get_attribute("data-key")
    assert len(site_key) == 87  # 65 bytes: an uncompressed P-256 point
    assert page.evaluate("window.subscribedWith") == site_key
    assert list(PushSubscription.objects.values_list("user", "endpoint", "p256dh", "language")) == [
        (player.pk, "http://127.0.0.1:9/push/phone", keys["p256dh"], "ru")
    ]
    screenshot(page, "push-optin-on-phone")
    # A subscribed device is posted again with each visit of the profile: the player now
    # logged in on it gets its pushes, in the language of the page.
    PushSubscription.objects.all().delete()
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": live_url}])
    with page.expect_response(
        lambda response: (
            response.url.endswith("/push/subscription/") and response.request.method == "POST"
        )
    ) as posted:
        page.reload()
    assert posted.value.status == 201
    expect(toggle).to_have_text("Stop notifying me")
    expect(page.get_by_test_id("push-on")).to_be_visible()
    assert list(PushSubscription.objects.values_list("user", "language")) == [(player.pk, "en")]
    toggle.click()
    expect(toggle).to_have_text("Notify me of my move")
    expect(page.locator("[data-push-status=off]")).to_be_visible()
    assert not PushSubscription.objects.exists()
    page.context.close()
