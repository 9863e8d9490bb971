// The reconnecting socket's pure rules (static/js/socket.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ReconnectingSocket,
  SERVER_RESTARTING,
  SERVER_UNAVAILABLE,
  TOO_MANY_SOCKETS,
  WAKE_ANSWER_MS,
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

// A page's socket over a stand-in WebSocket: sockets open, answer or die as each test says.
class FakeSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 3;
  static made = [];

  constructor(url) {
    this.url = url;
    this.readyState = FakeSocket.CONNECTING;
    this.sent = [];
    this.listeners = {};
    FakeSocket.made.push(this);
  }

  addEventListener(type, listener) {
    this.listeners[type] = listener;
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  close() {
    this.readyState = FakeSocket.CLOSED; // a dead connection's close event never comes
  }

  open() {
    this.readyState = FakeSocket.OPEN;
    this.listeners.open();
  }

  receive(message) {
    this.listeners.message({ data: JSON.stringify(message) });
  }

  lost(code = 1006) {
    this.readyState = FakeSocket.CLOSED;
    this.listeners.close({ code });
  }
}

function page(t) {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  FakeSocket.made = [];
  const events = {};
  const on = (type, listener) => { events[type] = listener; };
  globalThis.WebSocket = FakeSocket;
  globalThis.window = { location: { protocol: "https:", host: "durak.test" }, addEventListener: on };
  globalThis.document = { visibilityState: "visible", addEventListener: on };
  const calls = { wake: 0, status: [] };
  const socket = new ReconnectingSocket("/ws/table/5/", {
    onMessage: () => {},
    onStatus: (connected) => calls.status.push(connected),
    onWake: () => { calls.wake += 1; },
  });
  return { socket, events, calls };
}

test("a page shown again asks its open socket for the state at once and keeps it when it answers", (t) => {
  const { events, calls } = page(t);
  const [first] = FakeSocket.made;
  first.open();
  events.visibilitychange();
  assert.deepEqual(first.sent, [{ type: "ping" }]);
  assert.equal(calls.wake, 1);
  first.receive({ type: "pong" });
  t.mock.timers.tick(WAKE_ANSWER_MS);
  assert.equal(FakeSocket.made.length, 1);
  assert.equal(first.readyState, FakeSocket.OPEN);
});

test("a socket that died while the phone slept is replaced once it does not answer", (t) => {
  const { socket, events, calls } = page(t);
  const [first] = FakeSocket.made;
  first.open();
  events.pageshow({ persisted: true });
  t.mock.timers.tick(WAKE_ANSWER_MS - 1);
  assert.equal(FakeSocket.made.length, 1);
  t.mock.timers.tick(1);
  assert.equal(FakeSocket.made.length, 2);
  assert.equal(first.readyState, FakeSocket.CLOSED);
  assert.deepEqual(calls.status, [true, false]);
  FakeSocket.made[1].open();
  assert.ok(socket.connected);
});

test("a page back online reconnects at once instead of waiting out its backoff", (t) => {
  const { events } = page(t);
  const [first] = FakeSocket.made;
  first.open();
  first.lost(); // the retry waits its backoff
  assert.equal(FakeSocket.made.length, 1);
  events.online();
  assert.equal(FakeSocket.made.length, 2);
  t.mock.timers.tick(60000); // the retry it replaced does not open another
  assert.equal(FakeSocket.made.length, 2);
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
