// Pure move helpers of the table page (static/js/table/moves.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  beatTargets,
  beatenOffPasses,
  dropMove,
  hintFor,
  moveOptions,
  nextSelection,
  passIsDone,
  playableCards,
  statusLine,
  tableMove,
} from "../../static/js/table/moves.js";

const leadView = {
  table: [],
  legal_actions: [
    { type: "attack", cards: ["7S"] },
    { type: "attack", cards: ["7H"] },
    { type: "attack", cards: ["7S", "7H"] },
    { type: "attack", cards: ["QD"] },
  ],
};

const defenceView = {
  table: [{ attack: "8S", defense: null }, { attack: "8C", defense: null }],
  legal_actions: [
    { type: "defend", attack: "8S", card: "9S" },
    { type: "defend", attack: "8S", card: "AH" },
    { type: "defend", attack: "8C", card: "AH" },
    { type: "transfer", cards: ["8H"] },
    { type: "take" },
  ],
};

test("options of a lead list every legal lead and no throw-ins", () => {
  const options = moveOptions(leadView);
  assert.equal(options.leads.length, 4);
  assert.equal(options.throws.size, 0);
  assert.deepEqual([...playableCards(options)].sort(), ["7H", "7S", "QD"]);
});

test("options of a defence map each card to the attacks it beats", () => {
  const options = moveOptions(defenceView);
  assert.deepEqual(options.beats.get("AH"), ["8S", "8C"]);
  assert.deepEqual(options.beats.get("9S"), ["8S"]);
  assert.ok(options.transfers.has("8H"));
  assert.ok(options.take);
  assert.ok(!options.pass);
});

test("no view and no legal actions offer nothing", () => {
  assert.equal(playableCards(moveOptions(null)).size, 0);
  assert.equal(tableMove(moveOptions({ table: [] }), ["7S"]), null);
});

test("a lead is a legal set of one rank, in any order", () => {
  const options = moveOptions(leadView);
  assert.deepEqual(tableMove(options, ["7H", "7S"]), { type: "attack", cards: ["7H", "7S"] });
  assert.equal(tableMove(options, ["7S", "QD"]), null);
  assert.equal(tableMove(options, []), null);
});

test("tapping a lead card of another rank starts a new selection", () => {
  const options = moveOptions(leadView);
  assert.deepEqual(nextSelection(options, ["7S"], "7H"), ["7S", "7H"]);
  assert.deepEqual(nextSelection(options, ["7S", "7H"], "QD"), ["QD"]);
  assert.deepEqual(nextSelection(options, ["7S", "7H"], "7S"), ["7H"]);
});

test("a card that cannot be played leaves the selection as it was", () => {
  const options = moveOptions(leadView);
  const selected = ["7S"];
  assert.equal(nextSelection(options, selected, "KS"), selected);
});

test("a defending card is selected alone and targets the attacks it beats", () => {
  const options = moveOptions(defenceView);
  assert.deepEqual(nextSelection(options, ["9S"], "AH"), ["AH"]);
  assert.deepEqual(beatTargets(options, ["AH"]), ["8S", "8C"]);
  assert.deepEqual(beatTargets(options, ["AH", "9S"]), []);
});

test("a drop on an attack card beats it only where that is legal", () => {
  const options = moveOptions(defenceView);
  assert.deepEqual(dropMove(options, ["9S"], "8S"), { type: "defend", attack: "8S", card: "9S" });
  assert.equal(dropMove(options, ["9S"], "8C"), null);
  assert.deepEqual(dropMove(options, ["8H"], null), { type: "transfer", cards: ["8H"] });
  assert.deepEqual(dropMove(options, ["8H"], "8S"), { type: "transfer", cards: ["8H"] });
});

test("throw-ins go on the table together when each may be thrown", () => {
  const view = {
    table: [{ attack: "9D", defense: "TD" }],
    legal_actions: [{ type: "attack", cards: ["9C"] }, { type: "attack", cards: ["TC"] }, { type: "pass" }],
  };
  const options = moveOptions(view);
  assert.deepEqual(nextSelection(options, ["9C"], "TC"), ["9C", "TC"]);
  assert.deepEqual(tableMove(options, ["9C", "TC"]), { type: "attack", cards: ["9C", "TC"] });
  assert.ok(options.pass);
});

test("the leader who sees everything beaten says «Бито», others «Пас»", () => {
  assert.ok(passIsDone({ attacker: 0, taking: false }, 0));
  assert.ok(!passIsDone({ attacker: 0, taking: true }, 0));
  assert.ok(!passIsDone({ attacker: 1, taking: false }, 0));
});

test("the status line names the own task or the waited seats", () => {
  const base = { finished: false, attacker: 0, defender: 1, taking: false, table: [] };
  assert.deepEqual(statusLine({ ...base, waiting_for: [0] }, 0, false), { key: "your_lead" });
  assert.deepEqual(statusLine({ ...base, waiting_for: [1] }, 1, false), { key: "you_defend" });
  assert.deepEqual(statusLine({ ...base, waiting_for: [1] }, 0, false), { key: "waiting_for", seats: [1] });
  assert.deepEqual(statusLine({ ...base, waiting_for: [0] }, 0, true), { key: "sending" });
  assert.deepEqual(statusLine({ ...base, finished: true, waiting_for: [] }, 0, false), { key: "game_over" });
  assert.equal(statusLine({ ...base, waiting_for: [] }, null, false), null);
  const thrown = { ...base, table: [{ attack: "6S", defense: "7S" }], waiting_for: [0] };
  assert.deepEqual(statusLine(thrown, 0, false), { key: "you_may_throw_done" });
  assert.deepEqual(statusLine({ ...thrown, taking: true }, 0, false), { key: "you_may_throw_taking" });
});

test("the leader's pass with nothing taken is «Бито», any other pass «Пас»", () => {
  const move = (seat, bout, type, lead = false) => ({ seat, bout, lead, action: { type } });
  const events = [
    move(0, 0, "attack", true), move(1, 0, "defend"), move(2, 0, "pass"), move(0, 0, "pass"),
    move(1, 1, "attack", true), move(2, 1, "take"), move(1, 1, "pass"),
    move(2, 2, "pass"),
  ];
  assert.deepEqual(beatenOffPasses(events), [false, false, false, true, false, false, false, false]);
});

test("a hint selects the cards of the suggested move and names what to do", () => {
  assert.deepEqual(hintFor({ type: "attack", cards: ["7S", "7H"] }), { cards: ["7S", "7H"], key: "hint_attack", params: {} });
  assert.deepEqual(hintFor({ type: "defend", attack: "6S", card: "9S" }), { cards: ["9S"], key: "hint_defend", params: { attack: "6S" } });
  assert.deepEqual(hintFor({ type: "take" }), { cards: [], key: "hint_take", params: {} });
  assert.deepEqual(hintFor(null), { cards: [], key: "hint_none", params: {} });
});
