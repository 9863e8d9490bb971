// Playing by keyboard: which key does what (static/js/table/keys.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { commandFor, HELP_ROWS, helpKeys, LETTER_KEYS, movedIndex, transferCards } from "../../static/js/table/keys.js";
import { moveOptions } from "../../static/js/table/moves.js";

const press = (key, code = "", extra = {}) => ({ key, code, ...extra });

test("Enter and Space select in the hand, beat on an attack card and lead on the empty table", () => {
  for (const key of ["Enter", " "]) {
    assert.equal(commandFor(press(key), "hand"), "select");
    assert.equal(commandFor(press(key), "attack"), "beat");
    assert.equal(commandFor(press(key), "field"), "play");
    assert.equal(commandFor(press(key), "other"), null, "a button keeps its own Enter");
  }
});

test("letters are matched by their place, so the Russian layout gives the same commands", () => {
  assert.equal(commandFor(press("t", "KeyT"), "other"), "take");
  assert.equal(commandFor(press("е", "KeyT"), "hand"), "take");
  assert.equal(commandFor(press("в", "KeyD"), "attack"), "pass");
  assert.equal(commandFor(press("к", "KeyR"), "other"), "transfer");
  assert.equal(commandFor(press("з", "KeyP"), "other"), "play");
  assert.equal(commandFor(press("x", "KeyX"), "other"), null);
});

test("nothing is taken while typing, or with Ctrl, Alt or Meta held", () => {
  assert.equal(commandFor(press("t", "KeyT"), "typing"), null);
  assert.equal(commandFor(press("?", "Slash", { shiftKey: true }), "typing"), null);
  assert.equal(commandFor(press("t", "KeyT", { ctrlKey: true }), "other"), null);
  assert.equal(commandFor(press("r", "KeyR", { metaKey: true }), "hand"), null, "Cmd+R reloads");
  assert.equal(commandFor(press("s", "KeyS", { altKey: true }), "hand"), null);
});

test("«?» opens the help on either layout, Escape drops the selection", () => {
  assert.equal(commandFor(press("?", "Slash", { shiftKey: true }), "other"), "help");
  assert.equal(commandFor(press("?", "Digit7", { shiftKey: true }), "hand"), "help");
  assert.equal(commandFor(press("Escape", "Escape"), "hand"), "cancel");
});

test("arrows move among the cards of a group only, and stop at its ends", () => {
  assert.equal(commandFor(press("ArrowRight"), "hand"), "next");
  assert.equal(commandFor(press("ArrowUp"), "attack"), "previous");
  assert.equal(commandFor(press("End"), "hand"), "last");
  assert.equal(commandFor(press("ArrowRight"), "other"), null);
  assert.equal(movedIndex("next", 2, 5), 3);
  assert.equal(movedIndex("next", 4, 5), 4);
  assert.equal(movedIndex("previous", 0, 5), 0);
  assert.equal(movedIndex("first", 3, 5), 0);
  assert.equal(movedIndex("last", 0, 5), 4);
  assert.equal(movedIndex("next", 0, 0), -1);
});

const defence = moveOptions({
  table: [{ attack: "8S", defense: null }],
  legal_actions: [
    { type: "defend", attack: "8S", card: "TS" },
    { type: "defend", attack: "8S", card: "8H" },
    { type: "transfer", cards: ["8C"] },
    { type: "transfer", cards: ["8H"] },
    { type: "transfer", cards: ["8C", "8H"] },
    { type: "take" },
  ],
});

test("transfer takes the selection when it transfers, else a plain card before a trump", () => {
  assert.deepEqual(transferCards(defence, ["8C", "8H"], [], "H"), ["8C", "8H"]);
  assert.equal(transferCards(defence, ["TS"], ["TS"], "H"), null);
  assert.deepEqual(transferCards(defence, [], ["8H", "8C", "TS"], "H"), ["8C"]);
  assert.deepEqual(transferCards(defence, [], ["8H", "TS"], "H"), ["8H"]);
  assert.equal(transferCards(moveOptions({ table: [], legal_actions: [{ type: "take" }] }), [], ["8H"], "H"), null);
});

test("the help lists every letter key with both its letters", () => {
  const listed = HELP_ROWS.filter((row) => row.command).map((row) => row.command).sort();
  assert.deepEqual(listed, LETTER_KEYS.map((each) => each.command).sort());
  assert.deepEqual(helpKeys({ command: "take" }), ["T / Е"]);
  assert.deepEqual(helpKeys({ keys: ["Esc"] }), ["Esc"]);
});
