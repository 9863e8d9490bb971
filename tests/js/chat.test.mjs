// The table chat's rules (static/js/table/chat.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { CHAT_KEEP, chatBlockedUntil, mergeChat, ownNickname, playsHere, visibleChat } from "../../static/js/table/chat.js";

const line = (id, nickname = "anna") => ({ id, nickname, text: `line ${id}`, phrase: "" });

test("history and live lines merge once each, oldest first", () => {
  const live = mergeChat([], [line(5)]); // a message may arrive before the history
  const merged = mergeChat(live, [line(3), line(5), line(4)]);
  assert.deepEqual(merged.map((each) => each.id), [3, 4, 5]);
});

test("only the latest lines are kept", () => {
  const many = Array.from({ length: CHAT_KEEP + 7 }, (_, index) => line(index + 1));
  const kept = mergeChat([], many);
  assert.equal(kept.length, CHAT_KEEP);
  assert.equal(kept[0].id, 8);
});

test("muted writers' lines are hidden and come back when unmuted", () => {
  const lines = [line(1, "anna"), line(2, "boris"), line(3, "anna")];
  assert.deepEqual(visibleChat(lines, ["anna"]).map((each) => each.id), [2]);
  assert.deepEqual(visibleChat(lines, []).map((each) => each.id), [1, 2, 3]);
});

test("a staff mute counts only until it ends", () => {
  const now = Date.parse("2026-05-01T12:00:00Z");
  assert.equal(chatBlockedUntil(null, now), null);
  assert.equal(chatBlockedUntil("2026-05-01T11:59:59+00:00", now), null);
  assert.equal(chatBlockedUntil("2026-05-01T13:00:00+00:00", now).toISOString(), "2026-05-01T13:00:00.000Z");
});

test("players write under their nickname; spectators have none", () => {
  const players = [{ seat: 0, nickname: "anna" }, { seat: 1, nickname: "boris" }];
  assert.equal(ownNickname({ you: 1, players }), "boris");
  assert.equal(playsHere({ you: 0, players }), true);
  assert.equal(ownNickname({ you: null, players }), null);
  assert.equal(playsHere({ you: null, players }), false);
});
