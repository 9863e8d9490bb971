// The talon with the trump card under it, the trump suit, and the pile of beaten-off cards.
import { SUITS } from "../../cardcodes.js";
import { backElement, cardElement, sortHand, SUIT_SYMBOLS } from "../../cards.js";
import { t } from "../../i18n.js";
import { region } from "../region.js";
import { element, fromTemplate, slot } from "../dom.js";

const node = document.getElementById("deck");
const dialog = document.getElementById("discard-dialog");
const list = dialog.querySelector(".discard-list");

const draw = region((deck) => {
  if (!deck) {
    node.replaceChildren();
    return;
  }
  const content = fromTemplate("deck-template");
  const stack = slot(content, "stack");
  if (deck.trumpCard && (deck.talonSize > 0 || deck.players === 6)) {
    const trump = cardElement(deck.trumpCard);
    trump.classList.add("trump");
    stack.append(trump);
  }
  if (deck.talonSize > 1) stack.append(backElement());
  slot(content, "talon").textContent = `${t("talon")}: ${deck.talonSize}`;
  slot(content, "trump-label").textContent = `${t("trump")} `;
  const symbol = slot(content, "trump-suit");
  symbol.textContent = SUIT_SYMBOLS[deck.trumpSuit];
  symbol.classList.toggle("card-text", "DH".includes(deck.trumpSuit));
  symbol.classList.toggle("red", "DH".includes(deck.trumpSuit));
  slot(content, "discard-count").textContent = t("discard_count", { n: deck.discard.length });
  slot(content, "discard").disabled = !deck.discard.length;
  node.replaceChildren(...content.children);
});

/** The beaten-off cards by suit, each suit by rank. */
const drawList = region(({ discard, trumpSuit }) => {
  const rows = SUITS.split("").map((suit) => {
    const row = element("div", "discard-row");
    const cards = sortHand(discard.filter((code) => code[1] === suit), trumpSuit, "suit");
    const symbol = element("span", `suit-big card-text${"DH".includes(suit) ? " red" : ""}`, SUIT_SYMBOLS[suit]);
    row.append(symbol, ...cards.map((code) => cardElement(code, { size: "small" })));
    if (!cards.length) row.append(element("span", "muted", "—"));
    return row;
  });
  list.replaceChildren(...rows);
});

export function renderDeck({ view }) {
  draw(view && {
    trumpCard: view.trump_card,
    talonSize: view.talon_size,
    trumpSuit: view.trump_suit,
    players: view.players,
    discard: view.discard || [],
  });
  drawList({ discard: view?.discard || [], trumpSuit: view?.trump_suit });
}

node.addEventListener("click", (event) => {
  if (event.target.closest("[data-testid=discard]")) dialog.showModal();
});
