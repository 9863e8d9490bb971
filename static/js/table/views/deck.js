// The talon with the trump card under it, and the trump suit.
import { backElement, cardElement, SUIT_SYMBOLS } from "../../cards.js";
import { t } from "../../i18n.js";
import { region } from "../region.js";
import { fromTemplate, slot } from "../dom.js";

const node = document.getElementById("deck");

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
  node.replaceChildren(...content.children);
});

export function renderDeck({ view }) {
  draw(view && { trumpCard: view.trump_card, talonSize: view.talon_size, trumpSuit: view.trump_suit, players: view.players });
}
