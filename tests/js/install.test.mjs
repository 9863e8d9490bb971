// Installing the app (static/js/install.js) and opting in to pushes (static/js/push.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { installOffer, isIosSafari } from "../../static/js/install.js";
import { applicationServerKey, pushAvailability } from "../../static/js/push.js";

const IPHONE_SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
const IPHONE_CHROME = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1";
const IPAD_AS_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15";
const ANDROID_CHROME = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

test("Safari on an iPhone or an iPad is told apart from other iOS browsers and from a Mac", () => {
  assert.equal(isIosSafari(IPHONE_SAFARI), true);
  assert.equal(isIosSafari(IPHONE_CHROME), false);
  assert.equal(isIosSafari(IPAD_AS_MAC, 5), true);
  assert.equal(isIosSafari(IPAD_AS_MAC, 0), false); // a Mac has no touch screen
  assert.equal(isIosSafari(ANDROID_CHROME), false);
});

test("the Share steps show on iOS Safari only, the install button where the browser can prompt", () => {
  assert.equal(installOffer({ userAgent: IPHONE_SAFARI }), "ios");
  assert.equal(installOffer({ userAgent: IPHONE_CHROME }), null);
  assert.equal(installOffer({ userAgent: ANDROID_CHROME }), null);
  assert.equal(installOffer({ userAgent: ANDROID_CHROME, promptable: true }), "prompt");
});

test("nothing is offered in the installed app or after the player closed the hint", () => {
  assert.equal(installOffer({ userAgent: IPHONE_SAFARI, standalone: true }), null);
  assert.equal(installOffer({ userAgent: IPHONE_SAFARI, dismissed: true }), null);
  assert.equal(installOffer({ userAgent: ANDROID_CHROME, promptable: true, dismissed: true }), null);
});

test("the VAPID public key becomes the 65 bytes of an uncompressed P-256 point", () => {
  const key = "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U";
  const bytes = applicationServerKey(key);
  assert.equal(bytes.length, 65);
  assert.equal(bytes[0], 0x04);
  assert.equal(Buffer.from(bytes).toString("base64url"), key);
});

test("pushes need a service worker, PushManager and notifications; on iOS the installed app", () => {
  const all = { serviceWorker: true, pushManager: true, notification: true };
  assert.equal(pushAvailability({ ...all, userAgent: ANDROID_CHROME }), "ok");
  assert.equal(pushAvailability({ ...all, pushManager: false, userAgent: ANDROID_CHROME }), "unsupported");
  assert.equal(pushAvailability({ ...all, userAgent: IPHONE_SAFARI }), "install_first");
  assert.equal(pushAvailability({ ...all, userAgent: IPHONE_SAFARI, standalone: true }), "ok");
});
