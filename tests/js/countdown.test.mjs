// Tournament countdowns and the title alert (static/js/countdown.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { alertTitle, formatCountdown } from "../../static/js/countdown.js";

test("a countdown shows minutes and seconds, hours when there are any, days beyond", () => {
  assert.equal(formatCountdown(65_000), "01:05");
  assert.equal(formatCountdown(64_001), "01:05");
  assert.equal(formatCountdown(3_600_000 + 5_000), "01:00:05");
  assert.equal(formatCountdown(2 * 86_400_000 + 61_000), "2 d 00:01:01");
});

test("a countdown that has passed shows nothing", () => {
  assert.equal(formatCountdown(0), "");
  assert.equal(formatCountdown(-5), "");
  assert.equal(formatCountdown(Number.NaN), "");
});

test("the title alert puts the call first and gives the title back once answered", () => {
  assert.equal(alertTitle("Arena", "Your game is ready"), "▶ Your game is ready — Arena");
  assert.equal(alertTitle("Arena", ""), "Arena");
});
