// What a screen reader hears at the table (static/js/table/speech.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { sortHand } from "../../static/js/cardcodes.js";
import { boardSummary, boardText, moveAnnouncements, promptAnnouncement, spokenMove, spokenPair } from "../../static/js/table/speech.js";

// The English strings of games/templatetags/game_ui.py that these sentences use.
const STRINGS = {
  card_name: "%(rank)s of %(suit)s",
  rank_name_6: "six", rank_name_7: "seven", rank_name_8: "eight", rank_name_9: "nine", rank_name_T: "ten",
  rank_name_J: "jack", rank_name_Q: "queen", rank_name_K: "king", rank_name_A: "ace",
  suit_name_S: "spades", suit_name_C: "clubs", suit_name_D: "diamonds", suit_name_H: "hearts",
  say_lead: "%(name)s leads: %(cards)s",
  say_throw: "%(name)s throws in: %(cards)s",
  say_defend: "%(name)s beats: %(attack)s with %(card)s",
  say_transfer: "%(name)s transfers: %(cards)s",
  log_take: "%(name)s takes",
  log_pass: "%(name)s passes",
  log_done: "%(name)s: beaten off",
  log_automatic: "(by the server)",
  your_lead: "Your lead",
  you_defend: "Beat the cards, transfer or take",
  you_may_throw_pass: "You may throw in, or press Pass",
  waiting_for: "Waiting for %(names)s",
  result_durak: "%(name)s is the durak",
  result_draw: "A draw",
  say_your_place: "Your place: %(n)s",
  say_you: "You",
  say_player_cards: "%(name)s, cards: %(n)s",
  say_hand: "Your hand, cards: %(n)s",
  say_table: "On the table",
  say_table_empty: "nothing",
  say_pair_open: "%(attack)s, not beaten",
  say_pair_beaten: "%(attack)s, beaten: %(card)s",
  say_talon: "Talon: %(n)s, trump: %(card)s, beaten off: %(discard)s",
  role_attacker: "attacks", role_defender: "defends", role_taking: "takes", role_out: "out", role_turn: "to move",
};
const t = (key, params = {}) => (STRINGS[key] ?? key).replace(/%\((\w+)\)s/g, (_, name) => String(params[name]));
const names = ["Anna", "Boris", "Vera"];
const nameOf = (seat) => names[seat];

const game = { id: 5, status: "playing" };
const event = (version, seat, action, extra = {}) => ({ version, seat, action, bout: 0, lead: false, automatic: false, ...extra });

test("the other players' new moves are spoken with card names, the own ones are not", () => {
  const previous = { game, you: 0, version: 1, events: [event(1, 0, { type: "attack", cards: ["8S"] }, { lead: true })] };
  const next = {
    game, you: 0, version: 4,
    events: [
      ...previous.events,
      event(2, 1, { type: "defend", attack: "8S", card: "QS" }),
      event(3, 2, { type: "attack", cards: ["8H", "QD"] }),
      event(4, 0, { type: "attack", cards: ["QH"] }),
    ],
  };
  assert.deepEqual(moveAnnouncements(previous, next, { t, nameOf }), [
    "Boris beats: eight of spades with queen of spades",
    "Vera throws in: eight of hearts, queen of diamonds",
  ]);
});

test("a move the server made for the own seat is spoken, marked as the server's", () => {
  const previous = { game, you: 0, version: 0, events: [] };
  const next = { game, you: 0, version: 1, events: [event(1, 0, { type: "attack", cards: ["6C"] }, { lead: true, automatic: true })] };
  assert.deepEqual(moveAnnouncements(previous, next, { t, nameOf }), ["Anna leads: six of clubs (by the server)"]);
});

test("the leader's pass after a beaten bout is «beaten off», a thrower's is a pass", () => {
  const events = [
    event(1, 1, { type: "attack", cards: ["7C"] }, { lead: true }),
    event(2, 0, { type: "defend", attack: "7C", card: "9C" }),
    event(3, 2, { type: "pass" }),
    event(4, 1, { type: "pass" }),
  ];
  const spoken = moveAnnouncements({ game, you: 0, version: 2 }, { game, you: 0, version: 4, events }, { t, nameOf });
  assert.deepEqual(spoken, ["Vera passes", "Boris: beaten off"]);
  assert.equal(spokenMove(event(5, 1, { type: "take" }), { t, nameOf }), "Boris takes");
  assert.equal(spokenMove(event(6, 2, { type: "transfer", cards: ["TD"] }), { t, nameOf }), "Vera transfers: ten of diamonds");
});

test("a new game speaks its moves from the start; a spectator hears every seat", () => {
  const next = { game: { id: 6 }, you: null, version: 1, events: [event(1, 0, { type: "attack", cards: ["AS"] }, { lead: true })] };
  assert.deepEqual(moveAnnouncements({ game, you: null, version: 30, events: [] }, next, { t, nameOf }), ["Anna leads: ace of spades"]);
});

const view = (extra) => ({
  hand: ["QS", "6H", "9C"], hand_sizes: [3, 4, 0], talon_size: 10, trump_suit: "H", trump_card: "AH", discard_size: 6,
  table: [], attacker: 0, defender: 1, taking: false, passed: [], out: [2], waiting_for: [0], finished: false, ...extra,
});

test("the prompt is spoken when the own task changes, and not again while it stays", () => {
  const leading = { game, you: 0, version: 3, view: view({}) };
  const waiting = { game, you: 0, version: 2, view: view({ waiting_for: [1] }) };
  assert.equal(promptAnnouncement(waiting, leading, { t, nameOf }), "Your lead");
  assert.equal(promptAnnouncement(leading, { ...leading, version: 4 }, { t, nameOf }), null);
  assert.equal(promptAnnouncement(leading, waiting, { t, nameOf }), null, "a wait for another is no prompt");
  const defending = { game, you: 1, version: 4, view: view({ table: [{ attack: "7S", defense: null }], waiting_for: [1] }) };
  assert.equal(promptAnnouncement({ game, you: 1, version: 3, view: view({ waiting_for: [0] }) }, defending, { t, nameOf }), "Beat the cards, transfer or take");
});

test("the result is spoken once, with the own place", () => {
  const before = { game, you: 0, version: 9, view: view({}) };
  const over = {
    game, you: 0, version: 10, view: view({ finished: true }),
    result: { durak: 1, stalemate: false, payouts: [{ seat: 0, place: 1 }, { seat: 1, place: 2 }] },
  };
  assert.equal(promptAnnouncement(before, over, { t, nameOf }), "Boris is the durak. Your place: 1");
  assert.equal(promptAnnouncement(over, { ...over }, { t, nameOf }), null);
  const watched = { ...over, you: null };
  assert.equal(promptAnnouncement({ ...before, you: null }, watched, { t, nameOf }), "Boris is the durak");
});

test("the board reads as text: whose move, the own hand in screen order, the table, talon and counts", () => {
  const state = {
    game, you: 0,
    view: view({ table: [{ attack: "7S", defense: "9S" }, { attack: "7D", defense: null }], waiting_for: [1] }),
  };
  const board = boardText(state, { t, nameOf, sortHand });
  assert.equal(board.turn, "Waiting for Boris");
  assert.equal(board.hand, "Your hand, cards: 3: nine of clubs, queen of spades, six of hearts");
  assert.equal(board.table, "On the table: seven of spades, beaten: nine of spades; seven of diamonds, not beaten");
  assert.equal(board.talon, "Talon: 10, trump: ace of hearts, beaten off: 6");
  assert.deepEqual(board.players, ["You, cards: 3, attacks", "Boris, cards: 4, defends, to move", "Vera, cards: 0, out"]);
  assert.equal(boardSummary(board), `${board.turn}. ${board.table}. ${board.hand}`);
});

test("a spectator's board has no hand; no game, no board", () => {
  const board = boardText({ game, you: null, view: view({ hand: undefined }) }, { t, nameOf, sortHand });
  assert.equal(board.hand, null);
  assert.equal(board.table, "On the table: nothing");
  assert.equal(board.players[0], "Anna, cards: 3, attacks, to move");
  assert.equal(board.turn, "Waiting for Anna");
  assert.equal(boardText({ game: null, view: null }, { t, nameOf, sortHand }), null);
  assert.equal(boardSummary(null), "");
});

test("an attack card is told with its beat, or as not beaten", () => {
  assert.equal(spokenPair({ attack: "TD", defense: "KD" }, t), "ten of diamonds, beaten: king of diamonds");
  assert.equal(spokenPair({ attack: "6S", defense: null }, t), "six of spades, not beaten");
});
