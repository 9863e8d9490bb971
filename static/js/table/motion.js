// Short card motion (at most 250 ms) after a render: cards fly from where they were to where
// the new state puts them. The board itself is always drawn in its final position at once;
// motion only animates a transform back to it, or flies a decorative copy that leaves no trace,
// so a state arriving mid-flight can never leave a card in a wrong place.
import { cardElement } from "../cards.js";

const DURATION_MS = { off: 0, fast: 120, normal: 220 };
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const copies = new Set();

/** How many flights have been started (the page shows it to its tests). */
export const motionCount = { started: 0 };

/** The flight time for the player's setting: none when he asked the system for less motion,
 * or when the tab is hidden (the moves that arrive then are not worth replaying). */
export function flightMs(setting) {
  if (reducedMotion.matches || document.hidden) return 0;
  return DURATION_MS[setting] ?? 0;
}

/** Where every card on the board is now, by code: read before a render. */
export function cardRects() {
  const rects = new Map();
  for (const card of document.querySelectorAll("#hand .pcard, #playfield .pcard")) {
    rects.set(card.dataset.card, card.getBoundingClientRect());
  }
  return rects;
}

/** Remove the copies still in flight: a new state is coming. */
export function stopFlights() {
  for (const copy of copies) copy.remove();
  copies.clear();
}

function placeRect(place, before, code) {
  if (place === "hand" || place === "table") return before.get(code) || null;
  const selector = place === "deck" ? "#deck .stack" : place === "discard" ? "[data-testid=discard]" : `.seat[data-seat="${place.slice(5)}"]`;
  return document.querySelector(selector)?.getBoundingClientRect() || null;
}

function shift(from, to) {
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = Math.max(0.3, Math.min(1.5, from.width / to.width));
  return `translate(${dx}px, ${dy}px) scale(${scale})`;
}

/** Animate `flights` (from cardFlights) over `ms`, given the card rects read before the render. */
export function fly(flights, before, ms) {
  if (!ms) return;
  for (const { code, from, to } of flights) {
    const start = placeRect(from, before, code);
    if (!start) continue;
    const landed = to === "table" || to === "hand" ? document.querySelector(`#${to === "hand" ? "hand" : "playfield"} .pcard[data-card="${code}"]`) : null;
    if (landed) {
      const end = landed.getBoundingClientRect();
      landed.animate([{ transform: shift(start, end) }, { transform: "none" }], { duration: ms, easing: "ease-out" });
      motionCount.started += 1;
      continue;
    }
    const end = placeRect(to, before, code);
    if (!end) continue;
    const copy = cardElement(code);
    copy.classList.add("flying");
    copy.style.left = `${start.left}px`;
    copy.style.top = `${start.top}px`;
    document.body.append(copy);
    copies.add(copy);
    const animation = copy.animate(
      [{ transform: "none", opacity: 1 }, { transform: shift(end, start), opacity: 0.4 }],
      { duration: ms, easing: "ease-in", fill: "forwards" },
    );
    motionCount.started += 1;
    animation.finished.then(() => {
      copy.remove();
      copies.delete(copy);
    }, () => {});
  }
}
