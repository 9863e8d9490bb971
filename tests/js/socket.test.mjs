// The reconnecting socket's pure rules (static/js/socket.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  SERVER_RESTARTING,
  SERVER_UNAVAILABLE,
  TOO_MANY_SOCKETS,
  attemptAfterClose,
  offlineMessage,
  provesConnection,
  retryDelay,
} from "../../static/js/socket.js";

test("reconnect waits double with each attempt up to 15 s, each drawn from its upper half", () => {
  assert.equal(retryDelay(1, () => 0), 250);
  assert.equal(retryDelay(1, () => 1), 500);
  assert.equal(retryDelay(2, () => 0), 500);
  assert.equal(retryDelay(3, () => 1), 2000);
  assert.equal(retryDelay(20, () => 0), 7500);
  assert.equal(retryDelay(20, () => 1), 15000);
});

test("clients dropped at the same moment spread their returns", () => {
  const delays = new Set(Array.from({ length: 50 }, () => retryDelay(4)));
  assert.ok(delays.size > 40);
  for (const delay of delays) assert.ok(delay >= 2000 && delay <= 4000);
});

test("the player is told why he is offline", () => {
  assert.equal(offlineMessage(-1, 4401), "connection_refused");
  assert.equal(offlineMessage(1, TOO_MANY_SOCKETS), "too_many_sockets");
  assert.equal(offlineMessage(2, SERVER_UNAVAILABLE), "server_unavailable");
  assert.equal(offlineMessage(3, 1006), "reconnecting");
});

test("only the server's first state or tables start the backoff over, not an opened socket", () => {
  assert.equal(provesConnection({ type: "state", version: 3 }), true);
  assert.equal(provesConnection({ type: "tables", tables: [] }), true);
  assert.equal(provesConnection({ type: "pong" }), false);
  assert.equal(provesConnection({ type: "error", code: "rate_limited" }), false);
});

test("a restarting server is tried again at the shortest wait; other closes go on backing off", () => {
  assert.equal(attemptAfterClose(6, SERVER_RESTARTING), 0);
  assert.ok(retryDelay(attemptAfterClose(6, SERVER_RESTARTING) + 1) <= 500);
  assert.equal(attemptAfterClose(6, SERVER_UNAVAILABLE), 6);
  assert.equal(attemptAfterClose(6, 1006), 6);
});
