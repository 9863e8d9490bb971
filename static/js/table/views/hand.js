// The own hand, laid out in rows that keep every card's corner visible.
import { cardElement, sortHand } from "../../cards.js";
import { t } from "../../i18n.js";
import { handLayout } from "../layout.js";
import { playableCards } from "../moves.js";
import { region } from "../region.js";
import { element } from "../dom.js";

const HAND_GAP_PX = 6;
const HAND_MIN_VISIBLE_PX = 44; // of an overlapped card: its corner stays readable and a tap target
const hand = document.getElementById("hand");
const me = document.getElementById("me");

function rows(cards) {
  const style = getComputedStyle(hand);
  const cardWidth = parseFloat(style.getPropertyValue("--card-w")) || 74;
  const available = hand.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  // The screen's style says how many rows fit it (see game.css); past them the hand scrolls.
  const maxRows = parseInt(style.getPropertyValue("--hand-max-rows"), 10) || Infinity;
  const layout = handLayout({
    count: cards.length, cardWidth, available, gap: HAND_GAP_PX, minVisible: HAND_MIN_VISIBLE_PX, maxRows,
  });
  hand.style.setProperty("--hand-overlap", `${Math.floor(layout.step - cardWidth)}px`);
  hand.classList.toggle("scrolls", layout.scrolls);
  return Array.from({ length: layout.rows }, (_, row) => {
    const node = element("div", "hand-row");
    node.append(...cards.slice(row * layout.perRow, (row + 1) * layout.perRow));
    return node;
  });
}

const draw = region(({ hidden, spectating, codes, trumpSuit, playable, selected }) => {
  me.hidden = hidden;
  if (spectating) {
    hand.replaceChildren(element("div", "muted", t("spectating")));
    return;
  }
  const cards = codes.map((code) => {
    const card = cardElement(code, { trump: code[1] === trumpSuit });
    const canPlay = playable.includes(code);
    const isSelected = selected.includes(code);
    card.classList.add(canPlay ? "playable" : "disabled");
    card.classList.toggle("selected", isSelected);
    card.setAttribute("role", "button");
    card.tabIndex = canPlay ? 0 : -1;
    card.setAttribute("aria-disabled", canPlay ? "false" : "true");
    card.setAttribute("aria-pressed", isSelected ? "true" : "false");
    return card;
  });
  hand.replaceChildren(...rows(cards));
});

export function renderHand({ view: v, seat, options, selected, inFlight, sortBy, cardSize }) {
  const hidden = !v && seat === null;
  if (!v || seat === null) {
    draw({ hidden, spectating: Boolean(v), codes: [], width: 0 });
    return;
  }
  const playable = inFlight ? new Set() : playableCards(options);
  const codes = sortHand(v.hand || [], v.trump_suit, sortBy);
  draw({
    hidden,
    codes,
    trumpSuit: v.trump_suit,
    playable: codes.filter((code) => playable.has(code)),
    selected,
    width: hand.clientWidth, // a resize, a turned phone or another card size lays the rows out again
    height: window.innerHeight,
    cardSize,
  });
}
