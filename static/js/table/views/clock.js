// The countdown on the waited players' plaques, moved on between messages.
import { t } from "../../i18n.js";

export function tickCountdown(store) {
  const state = store.state;
  const total = (state.deadline_kind === "throw" ? state.table?.throw_seconds : state.table?.turn_seconds) || 30;
  const left = store.secondsLeft() ?? 0;
  for (const seat of document.querySelectorAll(".seat.waiting")) {
    const timer = seat.querySelector(".timer");
    if (!timer) continue;
    timer.firstElementChild.style.width = `${Math.min(100, (100 * left) / total)}%`;
    timer.classList.toggle("urgent", left <= 5);
    seat.querySelector(".timer-label").textContent = `${Math.ceil(left)} ${t("seconds_short")}`;
  }
}
