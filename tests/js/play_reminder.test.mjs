// The play-time reminder's schedule (static/js/play_reminder.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { minutesPlayed, nextReminderAt } from "../../static/js/play_reminder.js";

const MINUTE = 60_000;

test("the first reminder comes the chosen minutes after the start", () => {
  assert.equal(nextReminderAt(0, 0, 30), 30 * MINUTE);
  assert.equal(nextReminderAt(0, 29 * MINUTE, 30), 30 * MINUTE);
});

test("after a reminder the next one is a whole interval later", () => {
  assert.equal(nextReminderAt(0, 30 * MINUTE, 30), 60 * MINUTE);
  assert.equal(nextReminderAt(1000, 95 * MINUTE, 30), 1000 + 120 * MINUTE);
});

test("a clock that went backwards still schedules after the start", () => {
  assert.equal(nextReminderAt(10 * MINUTE, 0, 15), 25 * MINUTE);
});

test("minutes played are whole and never negative", () => {
  assert.equal(minutesPlayed(0, 90 * MINUTE + 59_000), 90);
  assert.equal(minutesPlayed(5 * MINUTE, 0), 0);
});
