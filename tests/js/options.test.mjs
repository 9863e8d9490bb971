// Table options as badges and the lobby's filter on them (static/js/options.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { optionBadges, tableVisible } from "../../static/js/options.js";

const DEFAULTS = { transfer: true, deck: 36, throw_in: "all", limit: "zavala" };
const ANY = { stakeMax: "", seats: "", free: false, transfer: "", deck: "", throw_in: "", limit: "", speed: "" };

function table(overrides = {}, options = {}) {
  return { stake: 100_00, seats: 4, taken: 1, speed: "normal", ...overrides, options: { ...DEFAULTS, ...options } };
}

test("the default game shows only the game and the deck", () => {
  assert.deepEqual(optionBadges(DEFAULTS, "normal"), ["transfer", "deck-36"]);
  assert.deepEqual(optionBadges(DEFAULTS, "slow"), ["transfer", "deck-36"]);
});

test("every option away from the default shows its badge, in a fixed order", () => {
  const options = { transfer: false, deck: 24, throw_in: "neighbours", limit: "classic" };
  assert.deepEqual(optionBadges(options, "fast"), ["podkidnoy", "deck-24", "neighbours", "classic", "fast"]);
  assert.deepEqual(optionBadges({ ...DEFAULTS, deck: 52 }, "normal"), ["transfer", "deck-52"]);
});

test("an empty filter shows every table", () => {
  assert.equal(tableVisible(table({}, { deck: 52, transfer: false }), ANY), true);
});

test("each option filter keeps only the tables with that option", () => {
  const podkidnoy24 = table({}, { transfer: false, deck: 24 });
  const neighboursClassic = table({ speed: "fast" }, { throw_in: "neighbours", limit: "classic" });
  const standard = table();
  const shown = (filter) =>
    [podkidnoy24, neighboursClassic, standard].filter((entry) => tableVisible(entry, { ...ANY, ...filter }));
  assert.deepEqual(shown({ transfer: "off" }), [podkidnoy24]);
  assert.deepEqual(shown({ transfer: "on" }), [neighboursClassic, standard]);
  assert.deepEqual(shown({ deck: "24" }), [podkidnoy24]);
  assert.deepEqual(shown({ deck: "36" }), [neighboursClassic, standard]);
  assert.deepEqual(shown({ deck: "52" }), []);
  assert.deepEqual(shown({ throw_in: "neighbours" }), [neighboursClassic]);
  assert.deepEqual(shown({ limit: "zavala" }), [podkidnoy24, standard]);
  assert.deepEqual(shown({ speed: "fast" }), [neighboursClassic]);
  assert.deepEqual(shown({ transfer: "off", deck: "36" }), []);
});

test("stake, seats and free seats filter as before", () => {
  const full = table({ taken: 4 });
  const dear = table({ stake: 500_00, seats: 2 });
  assert.equal(tableVisible(full, { ...ANY, free: true }), false);
  assert.equal(tableVisible(full, ANY), true);
  assert.equal(tableVisible(dear, { ...ANY, stakeMax: "499" }), false);
  assert.equal(tableVisible(dear, { ...ANY, stakeMax: "500" }), true);
  assert.equal(tableVisible(dear, { ...ANY, seats: "4" }), false);
  assert.equal(tableVisible(dear, { ...ANY, seats: "2" }), true);
});
