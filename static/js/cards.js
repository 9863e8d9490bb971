// Card codes are rank + suit: ranks 6789TJQKA, suits SCDH (e.g. "TH" = ten of hearts).
import { t } from "./i18n.js";

export const RANKS = "6789TJQKA";
export const SUIT_SYMBOLS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const RED = new Set(["D", "H"]);
const FACES = new Set(["J", "Q", "K"]);

export const rankOf = (code) => code[0];
export const suitOf = (code) => code[1];
export const isRed = (code) => RED.has(suitOf(code));

/** The rank as players read it: 10 for T, В/Д/К/Т in Russian, J/Q/K/A in English. */
export function rankLabel(rank) {
  return rank === "T" ? "10" : "6789".includes(rank) ? rank : t(`rank_${rank}`);
}

export function cardText(code) {
  return `${rankLabel(rankOf(code))}${SUIT_SYMBOLS[suitOf(code)]}`;
}

/** The spoken name for screen readers: "дама пик" / "queen of spades". */
export function cardName(code) {
  return t("card_name", { rank: t(`rank_name_${rankOf(code)}`), suit: t(`suit_name_${suitOf(code)}`) });
}

/** Inline HTML-free text node group for logs: "7♠", coloured red for ♦♥. */
export function cardSpan(code) {
  const span = document.createElement("span");
  span.className = `card-text${isRed(code) ? " red" : ""}`;
  span.textContent = cardText(code);
  return span;
}

/** Sort a hand: by rank, trumps last, ties by suit order. */
export function sortHand(codes, trumpSuit) {
  const key = (code) =>
    (suitOf(code) === trumpSuit ? 100 : 0) + RANKS.indexOf(rankOf(code)) * 4 + "SCDH".indexOf(suitOf(code));
  return [...codes].sort((a, b) => key(a) - key(b));
}

/** A face-up card element. */
export function cardElement(code, { size = "", trump = false } = {}) {
  const card = document.createElement("div");
  const rank = rankOf(code);
  const suit = SUIT_SYMBOLS[suitOf(code)];
  card.className = `pcard${isRed(code) ? " red" : ""}${size ? ` ${size}` : ""}${trump ? " trump-mark" : ""}`;
  card.dataset.card = code;
  card.setAttribute("role", "img");
  card.setAttribute("aria-label", cardName(code));
  const label = rankLabel(rank);
  const corner = (where) => {
    const node = document.createElement("span");
    node.className = `corner ${where}`;
    const r = document.createElement("span");
    r.textContent = label;
    const s = document.createElement("span");
    s.className = "suit";
    s.textContent = suit;
    node.append(r, s);
    return node;
  };
  const pip = document.createElement("span");
  pip.className = `pip${FACES.has(rank) ? " face" : ""}`;
  if (FACES.has(rank)) {
    const inner = document.createElement("span");
    inner.textContent = suit;
    pip.append(inner);
  } else {
    pip.textContent = suit;
  }
  card.append(corner("top"), pip, corner("bottom"));
  return card;
}

/** A face-down card element. */
export function backElement(size = "") {
  const card = document.createElement("div");
  card.className = `pcard back${size ? ` ${size}` : ""}`;
  card.setAttribute("aria-hidden", "true");
  return card;
}
