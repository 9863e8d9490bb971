// The countdowns, moved on between messages: on the waited players' plaques and, in large,
// near the own hand when the move is his.
import { t } from "../../i18n.js";

const URGENT_SECONDS = 5;
const turnClock = document.getElementById("turn-clock");

export function tickCountdown(store) {
  const state = store.state;
  const total = (state.deadline_kind === "throw" ? state.table?.throw_seconds : state.table?.turn_seconds) || 30;
  const left = store.secondsLeft() ?? 0;
  const width = `${Math.min(100, (100 * left) / total)}%`;
  const urgent = left <= URGENT_SECONDS;
  for (const seat of document.querySelectorAll(".seat.counting")) {
    const timer = seat.querySelector(".timer");
    timer.firstElementChild.style.width = width;
    timer.classList.toggle("urgent", urgent);
    seat.querySelector(".timer-label").textContent = `${Math.ceil(left)} ${t("seconds_short")}`;
  }
  if (turnClock.classList.contains("on")) {
    turnClock.querySelector(".text").textContent = t("your_move_left", { n: Math.ceil(left) });
    turnClock.querySelector(".bar > i").style.width = width;
    turnClock.classList.toggle("urgent", urgent);
  }
}
