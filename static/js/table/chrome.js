// The page around the board: the toast, the connection banner, the header's balance, the copy
// buttons of an invitation, and the sound and notification of what just happened.
import { t } from "../i18n.js";
import { offlineMessage } from "../socket.js";
import { settings } from "./settings.js";
import { isMyTurn, soundFor } from "./signals.js";
import { playSound } from "./sound.js";

const TOAST_MS = 3500;

const banner = document.getElementById("conn-banner");
const toast = document.getElementById("toast");
let toastTimer = null;
let lastBalanceKey = null;

export function showToast(text, isError = false) {
  toast.textContent = text;
  toast.classList.toggle("error", isError);
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toast.hidden = true; }, TOAST_MS);
}

/** The banner while the socket is down (`attempt` and close `code` say why and what next). */
export function showConnection(connected, attempt, code) {
  banner.hidden = connected;
  if (!connected) banner.textContent = t(offlineMessage(attempt, code));
  document.body.classList.toggle("offline", !connected);
}

/** Money moves when a game starts or ends: the header's balance is read again then. */
export async function refreshBalance(state, balanceUrl) {
  const key = `${state.game?.id}:${state.game?.status}:${state.table?.status}`;
  if (key === lastBalanceKey) return;
  lastBalanceKey = key;
  const target = document.getElementById("header-balance");
  if (!target || !balanceUrl) return;
  try {
    const response = await fetch(balanceUrl, { headers: { Accept: "application/json" } });
    if (response.ok) {
      const balance = await response.json();
      target.textContent = balance.formatted;
      const deposit = document.getElementById("header-deposit");
      if (deposit) deposit.hidden = balance.amount > 0;
    }
  } catch {
    // The next state change tries again.
  }
}

/** Sound, and a notification when the own turn begins in a hidden tab. */
export function signal(previous, next, tableId) {
  const sound = soundFor(previous, next);
  if (sound && settings().sound) playSound(sound);
  const turnBegins = isMyTurn(next) && !(isMyTurn(previous) && previous.game?.id === next.game?.id);
  if (turnBegins && settings().notifications && document.hidden && window.Notification?.permission === "granted") {
    new Notification(t("notify_your_turn"), { body: document.title, tag: `durak-table-${tableId}` });
  }
}

/** Buttons with `data-copy` copy the field they name (an invitation's link or code). */
export function bindCopyButtons() {
  document.querySelectorAll("[data-copy]").forEach((node) => {
    node.addEventListener("click", async () => {
      const input = document.getElementById(node.dataset.copy);
      input.select();
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        document.execCommand("copy");
      }
      showToast(t("copied"));
    });
  });
}
