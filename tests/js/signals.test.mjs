// Which signals a state change gives (static/js/table/signals.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { isMyTurn, soundFor } from "../../static/js/table/signals.js";

const state = ({ version = 1, game = 1, you = 0, waiting = [1], events = [], result = null, finished = false } = {}) => ({
  version,
  you,
  game: game && { id: game },
  view: { finished, waiting_for: waiting },
  events,
  result,
});

test("it is my turn only when a running game waits for my seat", () => {
  assert.ok(isMyTurn(state({ waiting: [0, 2] })));
  assert.ok(!isMyTurn(state({ waiting: [1] })));
  assert.ok(!isMyTurn(state({ waiting: [0], finished: true })));
  assert.ok(!isMyTurn({ ...state({ waiting: [0] }), you: null }));
});

test("my turn beginning sounds, and only once", () => {
  const before = state({ waiting: [1] });
  const now = state({ version: 2, waiting: [0], events: [{ version: 2, action: { type: "defend" } }] });
  assert.equal(soundFor(before, now), "turn");
  assert.equal(soundFor(now, { ...now, version: 3, events: [{ version: 3, action: { type: "attack" } }] }), "play");
});

test("other players' moves sound by their kind; nothing new is silent", () => {
  const before = state({ version: 4 });
  const move = (type) => state({ version: 5, events: [{ version: 4, action: { type: "attack" } }, { version: 5, action: { type } }] });
  assert.equal(soundFor(before, move("defend")), "beat");
  assert.equal(soundFor(before, move("take")), "take");
  assert.equal(soundFor(before, move("transfer")), "play");
  assert.equal(soundFor(before, move("pass")), null);
  assert.equal(soundFor(before, state({ version: 4, events: [{ version: 4, action: { type: "take" } }] })), null);
});

test("the end sounds a win or a loss for a player, nothing for a spectator", () => {
  const before = state({ version: 9 });
  const over = (durak, you = 0) => ({ ...state({ version: 10, finished: true, you, result: { durak, stalemate: false } }) });
  assert.equal(soundFor(before, over(0)), "lose");
  assert.equal(soundFor(before, over(1)), "win");
  assert.equal(soundFor(before, { ...over(1), you: null }), null);
  assert.equal(soundFor(over(1), { ...over(1), version: 11 }), null);
});
