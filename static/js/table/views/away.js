// The away notice: what the server played for the player while he was away, and while he is
// marked away, that his moves wait only the throw-in window; «Я вернулся» ends both.
import { t, tn } from "../../i18n.js";
import { region } from "../region.js";
import { serverMovesText } from "../server-moves.js";

const notice = document.getElementById("away-notice");
const summary = notice.querySelector("[data-slot=summary]");
const awayText = notice.querySelector("[data-slot=away]");

const draw = region((shown) => {
  notice.hidden = !shown;
  const text = shown ? serverMovesText(shown.moves, { t, tn }) : null;
  summary.hidden = !text;
  summary.textContent = text || "";
  awayText.hidden = !shown?.away;
});

/** `onBack` sends the «back» message. */
export function bindAway(onBack) {
  notice.querySelector("button").addEventListener("click", onBack);
}

/** `watch` is the page's AwayWatch (table/server-moves.js). */
export function renderAway({ state }, watch) {
  draw(watch.notice(state));
}
