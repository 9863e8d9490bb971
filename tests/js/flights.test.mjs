// Card motion planning (static/js/table/flights.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cardFlights } from "../../static/js/table/flights.js";

const view = (hand, table = [], extra = {}) => ({ hand, table, discard: [], defender: 1, ...extra });

test("a new deal flies every card from the deck to the hand", () => {
  assert.deepEqual(cardFlights(null, view(["6S", "7S"])), [
    { code: "6S", from: "deck", to: "hand" },
    { code: "7S", from: "deck", to: "hand" },
  ]);
});

test("an own lead flies from the hand, another's from his seat", () => {
  assert.deepEqual(cardFlights(view(["6S", "7S"]), view(["7S"], [{ attack: "6S", defense: null }]), 0), [
    { code: "6S", from: "hand", to: "table" },
  ]);
  assert.deepEqual(cardFlights(view(["7S"], [{ attack: "6S", defense: null }]), view(["7S"], [{ attack: "6S", defense: "8S" }]), 1), [
    { code: "8S", from: "seat:1", to: "table" },
  ]);
});

test("a beaten-off bout flies to the discard, a taken one to the taker", () => {
  const bout = [{ attack: "6S", defense: "8S" }];
  assert.deepEqual(cardFlights(view(["7S"], bout), view(["7S", "9D"], [], { discard: ["6S", "8S"] }), 0), [
    { code: "6S", from: "table", to: "discard" },
    { code: "8S", from: "table", to: "discard" },
    { code: "9D", from: "deck", to: "hand" },
  ]);
  const taken = [{ attack: "6S", defense: null }];
  assert.deepEqual(cardFlights(view(["7S"], taken), view(["7S"], []), 1), [{ code: "6S", from: "table", to: "seat:1" }]);
  assert.deepEqual(cardFlights(view(["7S"], taken, { defender: 0 }), view(["6S", "7S"], []), 0), [
    { code: "6S", from: "table", to: "hand" },
  ]);
});

test("nothing moved, nothing flies", () => {
  const same = view(["7S"], [{ attack: "6S", defense: null }]);
  assert.deepEqual(cardFlights(same, same, 1), []);
  assert.deepEqual(cardFlights(same, null, 1), []);
});
