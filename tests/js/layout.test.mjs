// Pure layout helpers and card order (static/js/table/layout.js, static/js/cardcodes.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { rankNumber, sortHand } from "../../static/js/cardcodes.js";
import { displayOrder, handLayout, logBouts, placeOf } from "../../static/js/table/layout.js";
import { region } from "../../static/js/table/region.js";

test("the own seat comes first, the others clockwise after it", () => {
  assert.deepEqual(displayOrder(4, 2), [2, 3, 0, 1]);
  assert.deepEqual(displayOrder(3, null), [0, 1, 2]);
});

test("a hand spreads out when there is room", () => {
  const layout = handLayout({ count: 6, cardWidth: 74, available: 1000, gap: 6, minVisible: 40 });
  assert.deepEqual(layout, { rows: 1, perRow: 6, step: 80, scrolls: false });
});

test("a long hand on a phone overlaps, then wraps, keeping each corner visible", () => {
  const overlap = handLayout({ count: 8, cardWidth: 52, available: 340, gap: 6, minVisible: 40 });
  assert.equal(overlap.rows, 1);
  assert.ok(overlap.step >= 40 && overlap.step < 58);
  const wrapped = handLayout({ count: 20, cardWidth: 52, available: 340, gap: 6, minVisible: 40 });
  assert.equal(wrapped.rows, 3);
  assert.equal(wrapped.perRow, 7);
  assert.ok(wrapped.step >= 40);
  assert.equal(wrapped.scrolls, false);
});

test("twenty cards on a 360 px phone: three rows, every card a 44 px tap target, none off screen", () => {
  const layout = handLayout({ count: 20, cardWidth: 52, available: 352, gap: 6, minVisible: 44 });
  assert.equal(layout.rows, 3);
  assert.ok(layout.step >= 44);
  assert.ok(52 + layout.step * (layout.perRow - 1) <= 352);
  assert.equal(layout.scrolls, false);
});

test("a 52-card game's biggest hands on a 360 px phone: three rows that scroll, each card a tap target", () => {
  for (const count of [30, 46]) {
    const layout = handLayout({ count, cardWidth: 52, available: 352, gap: 6, minVisible: 44, maxRows: 3 });
    assert.equal(layout.rows, 3);
    assert.equal(layout.perRow, Math.ceil(count / 3));
    assert.equal(layout.step, 44);
    assert.equal(layout.scrolls, true);
  }
});

test("a hand held to fewer rows keeps the minimum overlap and scrolls sideways", () => {
  const layout = handLayout({ count: 20, cardWidth: 48, available: 700, gap: 6, minVisible: 44, maxRows: 1 });
  assert.deepEqual(layout, { rows: 1, perRow: 20, step: 44, scrolls: true });
  const fits = handLayout({ count: 12, cardWidth: 48, available: 700, gap: 6, minVisible: 44, maxRows: 1 });
  assert.equal(fits.rows, 1);
  assert.equal(fits.scrolls, false);
  assert.ok(fits.step >= 44 && fits.step <= 54);
});

test("a hand narrower than one card still lays out one card per row without dividing by zero", () => {
  const layout = handLayout({ count: 3, cardWidth: 74, available: 60, gap: 6, minVisible: 40, maxRows: 2 });
  assert.deepEqual(layout, { rows: 2, perRow: 2, step: 40, scrolls: true });
});

test("log events group by bout in order", () => {
  const events = [{ bout: 1, n: 1 }, { bout: 1, n: 2 }, { bout: 2, n: 3 }];
  assert.deepEqual(logBouts(events).map((bout) => bout.map((event) => event.n)), [[1, 2], [3]]);
  assert.deepEqual(logBouts(undefined), []);
});

test("hands sort by rank or by suit, trumps last either way", () => {
  const hand = ["AS", "6H", "7C", "6S", "KH", "9D"];
  assert.deepEqual(sortHand(hand, "H"), ["6S", "7C", "9D", "AS", "6H", "KH"]);
  assert.deepEqual(sortHand(hand, "H", "suit"), ["6S", "AS", "7C", "9D", "6H", "KH"]);
});

test("a 52-card hand sorts its low ranks 2 to 5 below the six", () => {
  const hand = ["6S", "2S", "TS", "5H", "3C", "AS", "4D"];
  assert.deepEqual(sortHand(hand, "H"), ["2S", "3C", "4D", "6S", "TS", "AS", "5H"]);
});

test("ranks 2 to 10 show their number, picture cards and the ace none", () => {
  assert.deepEqual([..."23456789T"].map(rankNumber), ["2", "3", "4", "5", "6", "7", "8", "9", "10"]);
  assert.deepEqual([..."JQKA"].map(rankNumber), [null, null, null, null]);
});

test("a region redraws only when its inputs change", () => {
  const drawn = [];
  const draw = region((inputs) => drawn.push(inputs.n));
  assert.equal(draw({ n: 1 }), true);
  assert.equal(draw({ n: 1 }), false);
  assert.equal(draw({ n: 2 }), true);
  assert.deepEqual(drawn, [1, 2]);
});

test("a place counts the seats out before, ties sharing one", () => {
  const places = [[2], [0, 3], [1]];
  assert.equal(placeOf(places, 2), 1);
  assert.equal(placeOf(places, 3), 2);
  assert.equal(placeOf(places, 1), 4);
  assert.equal(placeOf(places, 5), null);
});
