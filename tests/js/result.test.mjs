// The result's wording (static/js/table/outcome.js), the plaques' badges
// (static/js/table/roles.js) and bot nicknames shown in the page's language
// (static/js/nicknames.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { shownNickname } from "../../static/js/nicknames.js";
import { ownPayout, signed } from "../../static/js/table/outcome.js";
import { mayThrowIn, seatBadges } from "../../static/js/table/roles.js";

const rubles = (kopecks) => `${(kopecks / 100).toFixed(2).replace(".", ",")} ₽`;

test("a net and a rating change carry their sign, with a true minus", () => {
  assert.equal(signed(15000, rubles), "+150,00 ₽");
  assert.equal(signed(-10000, rubles), "\u2212100,00 ₽");
  assert.equal(signed(0, rubles), "0,00 ₽");
  assert.equal(signed(12), "+12");
  assert.equal(signed(-8), "\u22128");
  assert.equal(signed(0), "0");
});

test("the own outcome is the viewer's row, and a spectator has none", () => {
  const result = { payouts: [{ seat: 1, net: 100 }, { seat: 0, net: -100 }] };
  assert.deepEqual(ownPayout(result, 0), { seat: 0, net: -100 });
  assert.equal(ownPayout(result, null), null);
  assert.equal(ownPayout(result, 3), null);
  assert.equal(ownPayout(null, 0), null);
});

const bout = (extra) => ({
  finished: false, attacker: 0, defender: 1, taking: false, passed: [], out: [],
  waiting_for: [1], table: [{ attack: "8D", defense: null }], ...extra,
});

test("the attacker attacks while the defender has the move, and throwers throw in", () => {
  const view = bout({});
  assert.deepEqual(seatBadges(view, 0), [["attack", "role_attacker"]]);
  assert.deepEqual(seatBadges(view, 1), [["turn", "role_turn"], ["defend", "role_defender"]]);
  assert.deepEqual(seatBadges(view, 1, true), [["defend", "role_defender"]]);
  assert.deepEqual(seatBadges(view, 2), [["throw", "role_thrower"]]);
});

test("before the lead nobody throws in, and the leader has the move", () => {
  const view = bout({ table: [], waiting_for: [0] });
  assert.deepEqual(seatBadges(view, 0), [["turn", "role_turn"], ["attack", "role_attacker"]]);
  assert.deepEqual(seatBadges(view, 2), []);
});

test("a taking defender, a thrower who passed, the leader's «Бито» and a player out", () => {
  const taking = bout({ taking: true, passed: [2], waiting_for: [0, 3], out: [4] });
  assert.deepEqual(seatBadges(taking, 1), [["taking", "role_taking"]]);
  assert.deepEqual(seatBadges(taking, 2), [["passed", "role_passed"]]);
  assert.deepEqual(seatBadges(taking, 3), [["turn", "role_turn"], ["throw", "role_thrower"]]);
  assert.deepEqual(seatBadges(taking, 4), [["out", "role_out"]]);
  const beaten = bout({ passed: [0], waiting_for: [2] });
  assert.deepEqual(seatBadges(beaten, 0), [["attack", "role_attacker"], ["passed", "role_done"]]);
});

test("at a neighbours table only the defender's neighbours still in throw in", () => {
  const view = bout({ players: 5, defender: 2, attacker: 1, options: { throw_in: "neighbours" } });
  assert.deepEqual(seatBadges(view, 3), [["throw", "role_thrower"]]);
  assert.deepEqual(seatBadges(view, 0), []);
  assert.deepEqual(seatBadges(view, 4), []);
  // A neighbour who is out gives way to the next player still in.
  const skipped = { ...view, out: [3] };
  assert.deepEqual(seatBadges(skipped, 4), [["throw", "role_thrower"]]);
  assert.equal(mayThrowIn({ ...view, options: { throw_in: "all" } }, 0), true);
  // Around the circle: the defender at seat 0 has seats 1 and 4 beside him.
  const wrapped = { ...view, defender: 0, attacker: 4 };
  assert.deepEqual([1, 2, 3, 4].filter((seat) => mayThrowIn(wrapped, seat)), [1, 4]);
});

test("a finished game or no game shows no badges", () => {
  assert.deepEqual(seatBadges(bout({ finished: true }), 1), []);
  assert.deepEqual(seatBadges(null, 1), []);
});

const words = { "Новичок": "Novice", "Любитель": "Amateur", "Мастер": "Master" };

test("a bot's nickname is shown in the page's language, a player's as it is", () => {
  assert.equal(shownNickname("Новичок 1", words), "Novice 1");
  assert.equal(shownNickname("Мастер 12", words), "Master 12");
  assert.equal(shownNickname("Новичок 1", {}), "Новичок 1");
  assert.equal(shownNickname("Новичок", words), "Новичок");
  assert.equal(shownNickname("Новичок x", words), "Новичок x");
  assert.equal(shownNickname("anna", words), "anna");
  assert.equal(shownNickname("constructor 1", words), "constructor 1");
  assert.equal(shownNickname(undefined, words), undefined);
});
