// Signs that it is the own move: the tab's title and icon, and the countdown near the hand.
import { t } from "../../i18n.js";
import { region } from "../region.js";
import { isMyTurn } from "../signals.js";

const baseTitle = document.title;
const icon = document.getElementById("favicon");
const restingIcon = icon?.getAttribute("href");
const clock = document.getElementById("turn-clock");

const draw = region(({ mine, counting }) => {
  document.title = mine ? `${t("title_your_turn")} — ${baseTitle}` : baseTitle;
  if (icon) icon.setAttribute("href", mine ? icon.dataset.turnHref : restingIcon);
  clock.classList.toggle("on", mine && counting);
});

export function renderTurn({ state }) {
  draw({ mine: isMyTurn(state), counting: Boolean(state.deadline) });
}
