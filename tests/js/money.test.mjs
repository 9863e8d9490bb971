// Amounts in the scripts (static/js/money.js), the same as the server's format_money.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatAmount } from "../../static/js/money.js";

const rubles = { language: "ru", sign: "₽" };
const dollars = { language: "en", sign: "$" };
const russianChips = {
  language: "ru",
  sign: "фишки",
  chips: { one: "%(amount)s фишка", few: "%(amount)s фишки", many: "%(amount)s фишек", other: "%(amount)s фишек" },
};
const englishChips = {
  language: "en",
  sign: "chips",
  chips: { one: "%(amount)s chip", few: "%(amount)s chips", many: "%(amount)s chips", other: "%(amount)s chips" },
};

test("money in a currency keeps two decimals and the sign where the language puts it", () => {
  assert.equal(formatAmount(125000, rubles), "1 250,00 ₽");
  assert.equal(formatAmount(-5, rubles), "\u22120,05 ₽");
  assert.equal(formatAmount(125050, dollars), "$1,250.50");
});

test("chips are counted in words, with the plural the number asks for", () => {
  assert.equal(formatAmount(100, russianChips), "1 фишка");
  assert.equal(formatAmount(300, russianChips), "3 фишки");
  assert.equal(formatAmount(125000, russianChips), "1 250 фишек");
  assert.equal(formatAmount(2100, russianChips), "21 фишка");
  assert.equal(formatAmount(-1100, russianChips), "\u221211 фишек");
  assert.equal(formatAmount(1250, russianChips), "12,50 фишки");
  assert.equal(formatAmount(100, englishChips), "1 chip");
  assert.equal(formatAmount(125000, englishChips), "1,250 chips");
  assert.equal(formatAmount(1250, englishChips), "12.50 chips");
  for (const spec of [russianChips, englishChips]) {
    assert.doesNotMatch(formatAmount(123456, spec), /₽|\$/);
  }
});
