// The away notice: the server plays for an away player at once; he says «Я вернулся» to stop it.
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
