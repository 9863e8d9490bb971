// Plural forms picked by number (static/js/plural.js), as Russian and English need them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { pluralForm } from "../../static/js/plural.js";

// As games/templatetags/game_ui.py renders them from the catalogs.
const RUSSIAN = { one: "взяли %(n)s раз", few: "взяли %(n)s раза", many: "взяли %(n)s раз", other: "взяли %(n)s раз" };
const ENGLISH = { one: "took %(n)s time", few: "took %(n)s times", many: "took %(n)s times", other: "took %(n)s times" };

test("Russian numbers take one, few or many forms by their last digits", () => {
  for (const n of [1, 21, 101]) assert.equal(pluralForm(RUSSIAN, n, "ru"), RUSSIAN.one);
  for (const n of [2, 3, 4, 22, 34]) assert.equal(pluralForm(RUSSIAN, n, "ru"), RUSSIAN.few);
  for (const n of [5, 11, 12, 14, 20, 111]) assert.equal(pluralForm(RUSSIAN, n, "ru"), RUSSIAN.many);
});

test("English has one form for 1 and another for the rest", () => {
  assert.equal(pluralForm(ENGLISH, 1, "en"), "took %(n)s time");
  for (const n of [0, 2, 5, 21]) assert.equal(pluralForm(ENGLISH, n, "en"), "took %(n)s times");
});
