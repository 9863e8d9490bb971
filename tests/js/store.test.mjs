// The table page's store (static/js/table/store.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { TableStore } from "../../static/js/table/store.js";

const state = (version, hand, gameId = 1, extra = {}) => ({ version, game: { id: gameId }, you: 0, view: { hand }, ...extra });

test("an older snapshot of the same game is ignored", () => {
  const store = new TableStore(state(5, ["6S"]));
  assert.equal(store.receive(state(4, ["7S"])), false);
  assert.equal(store.state.version, 5);
  assert.equal(store.receive(state(6, ["7S"])), true);
  assert.deepEqual(store.view.hand, ["7S"]);
});

test("a new game's state is taken even with a lower version", () => {
  const store = new TableStore(state(50, ["6S"]));
  assert.equal(store.receive(state(1, ["7S"], 2)), true);
  assert.equal(store.gameId, 2);
});

test("the selection keeps only cards still in the hand, and clears with a new game", () => {
  const store = new TableStore(state(1, ["6S", "7S", "8S"]));
  store.select(["6S", "7S"]);
  store.receive(state(2, ["7S", "8S"]));
  assert.deepEqual(store.selected, ["7S"]);
  store.receive(state(1, ["7S"], 2));
  assert.deepEqual(store.selected, []);
});

test("a move in flight ends with the next state and its timer never fires", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const store = new TableStore(state(1, ["6S"]));
  let timedOut = false;
  store.select(["6S"]);
  store.beginMove(() => { timedOut = true; }, 8000);
  assert.equal(store.inFlight.version, 1);
  assert.deepEqual(store.selected, []);
  store.receive(state(2, []));
  assert.equal(store.inFlight, null);
  t.mock.timers.tick(10000);
  assert.equal(timedOut, false);
});

test("a move without an answer times out", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const store = new TableStore(state(1, ["6S"]));
  let timedOut = false;
  store.beginMove(() => { timedOut = true; }, 8000);
  t.mock.timers.tick(7999);
  assert.equal(timedOut, false);
  t.mock.timers.tick(1);
  assert.equal(timedOut, true);
  assert.equal(store.inFlight, null);
});

test("seconds left follow the server's clock", () => {
  const serverNow = Date.parse("2030-01-01T00:00:00Z");
  const store = new TableStore(state(1, []));
  store.receive(state(2, [], 1, { server_time: "2030-01-01T00:00:00Z", deadline: "2030-01-01T00:00:20Z" }), serverNow - 3000);
  assert.equal(store.clockOffsetMs, 3000);
  assert.equal(store.secondsLeft(serverNow - 3000), 20);
  assert.equal(store.secondsLeft(serverNow + 30000), 0);
  store.receive(state(3, []));
  assert.equal(store.secondsLeft(), null);
});

test("a rematch offer is open only until its time by the server's clock", () => {
  const serverNow = Date.parse("2030-01-01T00:00:00Z");
  const store = new TableStore(state(1, []));
  const rematch = { confirmed: [0], until: "2030-01-01T00:00:30Z" };
  store.receive(state(2, [], 1, { server_time: "2030-01-01T00:00:00Z", rematch }), serverNow);
  assert.equal(store.rematchAgreed, true);
  assert.deepEqual(store.openRematch(serverNow + 29000), rematch);
  assert.equal(store.openRematch(serverNow + 30000), null);
  store.receive(state(1, [], 2), serverNow);
  assert.equal(store.rematchAgreed, false);
});

test("a state with only the latest moves extends the log it follows", () => {
  const first = { version: 2, bout: 0, seat: 0, action: { type: "attack", cards: ["6S"] }, automatic: false, lead: true };
  const second = { version: 3, bout: 0, seat: 1, action: { type: "take" }, automatic: false, lead: false };
  const store = new TableStore(state(2, ["6S"], 1, { events: [first] }));
  const delta = state(3, ["6S"], 1, { events: [second], events_from: 2 });
  assert.equal(store.continues(delta), true);
  assert.equal(store.receive(delta), true);
  assert.deepEqual(store.state.events, [first, second]);
  assert.equal("events_from" in store.state, false);
});

test("a state with only the latest moves that do not follow the held ones asks for all", () => {
  const store = new TableStore(state(2, ["6S"], 1, { events: [] }));
  assert.equal(store.continues(state(5, [], 1, { events: [], events_from: 4 })), false);
  assert.equal(store.continues(state(6, [], 1, { events: [] })), true); // a full state
});

test("a new game's moves from its start replace the old game's log", () => {
  const old = { version: 9, bout: 3, seat: 0, action: { type: "pass" }, automatic: false, lead: false };
  const lead = { version: 1, bout: 0, seat: 1, action: { type: "attack", cards: ["7H"] }, automatic: true, lead: true };
  const store = new TableStore(state(9, [], 1, { events: [old] }));
  const fresh = state(1, ["6S"], 2, { events: [lead], events_from: 0 });
  assert.equal(store.continues(fresh), true);
  store.receive(fresh);
  assert.deepEqual(store.state.events, [lead]);
});

test("the log keeps the latest 200 moves", () => {
  const move = (version) => ({ version, bout: 0, seat: 0, action: { type: "pass" }, automatic: false, lead: false });
  const events = Array.from({ length: 200 }, (_, index) => move(index + 1));
  const store = new TableStore(state(200, [], 1, { events }));
  store.receive(state(201, [], 1, { events: [move(201)], events_from: 200 }));
  assert.equal(store.state.events.length, 200);
  assert.equal(store.state.events[0].version, 2);
  assert.equal(store.state.events[199].version, 201);
});

test("a page opened after confirming a rematch remembers it when the offer lapses", () => {
  const finished = { version: 40, game: { id: 1 }, you: 1, view: { hand: [] }, table: { status: "closed" } };
  const store = new TableStore({ ...finished, rematch: { confirmed: [1], until: "2026-05-01T12:02:00+00:00" } });
  assert.equal(store.rematchAgreed, true);
  store.receive({ ...finished, rematch: null });
  assert.equal(store.rematchAgreed, true);
  assert.equal(new TableStore({ ...finished, rematch: { confirmed: [0] } }).rematchAgreed, false);
});

test("a rematch confirmation sent waits for the own seat's, not another player's", () => {
  const finished = { version: 40, game: { id: 1 }, you: 1, view: { hand: [] } };
  const store = new TableStore({ ...finished, rematch: { confirmed: [] } });
  store.rematchRequested();
  store.receive({ ...finished, rematch: { confirmed: [0] } });
  assert.equal(store.rematchSent, true);
  store.receive({ ...finished, rematch: { confirmed: [0, 1] } });
  assert.equal(store.rematchSent, false);
  assert.equal(store.rematchAgreed, true);
  store.rematchRequested();
  store.receive({ ...finished, version: 0, game: { id: 2 }, rematch: null });
  assert.equal(store.rematchSent, false);
});

test("a sync names the version and game shown, 0 for none", () => {
  assert.deepEqual(new TableStore(state(7, ["6S"], 41)).syncRequest(), { type: "sync", version: 7, game: 41 });
  assert.deepEqual(new TableStore({ version: 0, game: null }).syncRequest(), { type: "sync", version: 0, game: 0 });
});

test("a refusal ends the move in flight and lets a rematch be confirmed again", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const store = new TableStore({ version: 40, game: { id: 1 }, you: 1, view: { hand: [] }, rematch: { confirmed: [] } });
  let timedOut = false;
  store.beginMove(() => { timedOut = true; }, 8000);
  store.rematchRequested();
  store.refused("stale_version");
  assert.equal(store.inFlight, null);
  assert.equal(store.rematchSent, false);
  assert.equal(store.rematchShort, false);
  t.mock.timers.tick(10000);
  assert.equal(timedOut, false);
  store.refused("insufficient_funds");
  assert.equal(store.rematchShort, true);
});

test("an armed take and the selection are put off together, and a new state disarms", () => {
  const store = new TableStore(state(1, ["6S", "7S"]));
  store.armTake();
  store.select(["6S"]);
  store.clearChoice();
  assert.equal(store.takeArmed, false);
  assert.deepEqual(store.selected, []);
  store.armTake();
  store.receive(state(2, ["6S", "7S"]));
  assert.equal(store.takeArmed, false);
});

test("nothing outside the store changes it but its methods", () => {
  const store = new TableStore(state(1, ["6S"]));
  assert.throws(() => { store.takeArmed = true; }, TypeError);
  assert.throws(() => { store.state = state(9, []); }, TypeError);
  assert.equal(store.takeArmed, false);
  assert.equal(store.state.version, 1);
});
