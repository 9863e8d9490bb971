// The away notice: an away player is played for at once should he disconnect; «Я вернулся» ends it.
import { region } from "../region.js";

const notice = document.getElementById("away-notice");

const draw = region(({ away }) => {
  notice.hidden = !away;
});

/** `onBack` sends the «back» message. */
export function bindAway(onBack) {
  notice.querySelector("button").addEventListener("click", onBack);
}

export function renderAway({ state, seat }) {
  const me = (state.players || []).find((player) => player.seat === seat);
  draw({ away: Boolean(me?.away && state.view && !state.view.finished) });
}
