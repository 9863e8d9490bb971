// Card elements and card names (codes and sorting live in cardcodes.js).
import { isRed, rankNumber, rankOf, spokenCard, suitOf } from "./cardcodes.js";
import { t } from "./i18n.js";

export { isRed, RANKS, rankOf, sortHand, suitOf } from "./cardcodes.js";
export const SUIT_SYMBOLS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const FACES = new Set(["J", "Q", "K"]);

/** The rank as players read it: 2 to 10, В/Д/К/Т in Russian, J/Q/K/A in English. */
export function rankLabel(rank) {
  return rankNumber(rank) ?? t(`rank_${rank}`);
}

export function cardText(code) {
  return `${rankLabel(rankOf(code))}${SUIT_SYMBOLS[suitOf(code)]}`;
}

/** The spoken name for screen readers: "дама пик" / "queen of spades". */
export const cardName = (code) => spokenCard(code, t);

/** Inline HTML-free text node group for logs: "7♠", coloured red for ♦♥. */
export function cardSpan(code) {
  const span = document.createElement("span");
  span.className = `card-text${isRed(code) ? " red" : ""}`;
  span.textContent = cardText(code);
  return span;
}

// One card's markup, cloned for every card instead of building it node by node.
const CARD_TEMPLATE = document.createElement("template");
CARD_TEMPLATE.innerHTML = '<div class="pcard" role="img"><span class="corner top"><span></span><span class="suit"></span></span>'
  + '<span class="pip"></span><span class="corner bottom"><span></span><span class="suit"></span></span></div>';

/** A face-up card element. */
export function cardElement(code, { size = "", trump = false } = {}) {
  const card = CARD_TEMPLATE.content.firstElementChild.cloneNode(true);
  const rank = rankOf(code);
  const suit = SUIT_SYMBOLS[suitOf(code)];
  if (isRed(code)) card.classList.add("red");
  if (size) card.classList.add(size);
  if (trump) card.classList.add("trump-mark");
  card.dataset.card = code;
  card.setAttribute("aria-label", cardName(code));
  const label = rankLabel(rank);
  for (const corner of card.querySelectorAll(".corner")) {
    corner.firstElementChild.textContent = label;
    corner.lastElementChild.textContent = suit;
  }
  const pip = card.querySelector(".pip");
  if (FACES.has(rank)) {
    pip.classList.add("face");
    pip.append(Object.assign(document.createElement("span"), { textContent: suit }));
  } else {
    pip.textContent = suit;
  }
  return card;
}

/** A face-down card element. */
export function backElement(size = "") {
  const card = document.createElement("div");
  card.className = `pcard back${size ? ` ${size}` : ""}`;
  card.setAttribute("aria-hidden", "true");
  return card;
}
