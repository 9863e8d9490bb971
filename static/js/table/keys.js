// Which key does what at the table. Letters are matched by their place on the keyboard
// (KeyboardEvent.code), so they work the same on a Russian layout; the help names both letters.
// Pure: `node --test` covers it.
import { tableMove } from "./moves.js";

// The letter keys: the command, the key's place, and its Latin and Cyrillic letters.
export const LETTER_KEYS = [
  { command: "play", code: "KeyP", letters: ["P", "З"] },
  { command: "transfer", code: "KeyR", letters: ["R", "К"] },
  { command: "take", code: "KeyT", letters: ["T", "Е"] },
  { command: "pass", code: "KeyD", letters: ["D", "В"] },
  { command: "hand", code: "KeyH", letters: ["H", "Р"] },
  { command: "table", code: "KeyA", letters: ["A", "Ф"] },
  { command: "say", code: "KeyS", letters: ["S", "Ы"] },
];

const ARROWS = {
  ArrowLeft: "previous", ArrowUp: "previous", ArrowRight: "next", ArrowDown: "next", Home: "first", End: "last",
};

/**
 * The command a key press asks for, or null. `where` is where the focus is: "hand" (a card in
 * the own hand), "attack" (an attack card on the table), "field" (the empty table), "other"
 * (anywhere else on the page) or "typing" (a text field, a menu, an open dialog).
 */
export function commandFor({ key, code, ctrlKey = false, altKey = false, metaKey = false }, where) {
  if (where === "typing" || ctrlKey || altKey || metaKey) return null;
  if (key === "?") return "help";
  if (key === "Enter" || key === " ") {
    return { hand: "select", attack: "beat", field: "play" }[where] || null;
  }
  if (ARROWS[key] && (where === "hand" || where === "attack")) return ARROWS[key];
  if (key === "Escape") return "cancel";
  return LETTER_KEYS.find((each) => each.code === code)?.command || null;
}

/** The index the focus moves to among `count` cards from `index` for a move command. */
export function movedIndex(command, index, count) {
  if (!count) return -1;
  const to = { previous: index - 1, next: index + 1, first: 0, last: count - 1 }[command] ?? index;
  return Math.max(0, Math.min(count - 1, to));
}

/**
 * The cards to transfer with: the selection when it transfers, else with nothing selected the
 * first card of `hand` (in the order shown) that may transfer, a plain suit before a trump.
 * Null when no transfer is possible.
 */
export function transferCards(options, selected, hand, trumpSuit) {
  if (selected.length) return tableMove(options, selected)?.type === "transfer" ? [...selected] : null;
  const candidates = hand.filter((card) => options.transfers.has(card));
  const plain = candidates.find((card) => card[1] !== trumpSuit);
  const card = plain || candidates[0];
  return card ? [card] : null;
}

// The help dialog's rows: the keys shown and the translation key of what they do.
export const HELP_ROWS = [
  { keys: ["Tab", "Shift+Tab"], text: "keys_tab" },
  { keys: ["←", "→", "Home", "End"], text: "keys_arrows" },
  { keys: ["Space", "Enter"], text: "keys_select" },
  { keys: ["Enter"], text: "keys_beat" },
  { command: "play", text: "keys_play" },
  { command: "transfer", text: "keys_transfer" },
  { command: "take", text: "keys_take" },
  { command: "pass", text: "keys_pass" },
  { keys: ["Esc"], text: "keys_cancel" },
  { command: "hand", text: "keys_hand" },
  { command: "table", text: "keys_table" },
  { command: "say", text: "keys_say" },
  { keys: ["?"], text: "keys_help" },
];

/** The key caps of a help row: "P / З" for a letter key. */
export function helpKeys(row) {
  if (row.keys) return row.keys;
  return [LETTER_KEYS.find((each) => each.command === row.command).letters.join(" / ")];
}
