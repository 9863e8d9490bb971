// A friend's invitation to his table, as any page with a socket receives it: a notice with a
// button that sits the player down there (docs/protocol.md, "invite").
import { formatMoney, nickname, t } from "./i18n.js";

/** The address of the join form for `tableId`, from the form's address for table 0. */
function joinAddress(pattern, tableId) {
  return pattern.replace(/\/0\/join\/$/, `/${tableId}/join/`);
}

/** Show the invitation of an "invite" message; a newer one replaces it. */
export function showInvite(message) {
  const template = document.getElementById("invite-template");
  if (!template) return;
  document.querySelector(".invite-toast")?.remove();
  const toast = template.content.firstElementChild.cloneNode(true);
  const part = (name) => toast.querySelector(`[data-slot="${name}"]`);
  part("text").textContent = t("invite_text", {
    name: nickname(message.from),
    table: message.table,
    stake: formatMoney(message.stake),
    seats: message.seats,
  });
  const form = part("form");
  form.action = joinAddress(form.getAttribute("action"), message.table);
  part("code").value = message.invite_code;
  part("dismiss").addEventListener("click", () => toast.remove());
  toast.addEventListener("keydown", (event) => {
    if (event.key === "Escape") toast.remove();
  });
  document.body.append(toast);
  form.querySelector("button").focus();
}
