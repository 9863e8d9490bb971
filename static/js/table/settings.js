// The player's table settings: read from the page, changed in the settings dialog or by the
// header's sound switch, and saved on the server so they follow him to every device.
import { readJson, t } from "../i18n.js";

const form = document.getElementById("settings-form");
const dialog = document.getElementById("settings-dialog");
const soundToggle = document.getElementById("sound-toggle");
const status = form.querySelector("[data-slot=settings-status]");
const listeners = [];
let current = readJson("table-settings");

export const settings = () => current;

/** Run `listener(settings)` now and after every change. */
export function onSettingsChange(listener) {
  listeners.push(listener);
  listener(current);
}

function show() {
  for (const field of form.elements) {
    if (!(field.name in current)) continue;
    if (field.type === "checkbox") field.checked = Boolean(current[field.name]);
    else field.value = current[field.name];
  }
  soundToggle.setAttribute("aria-pressed", String(current.sound));
  listeners.forEach((listener) => listener(current));
}

async function change(changes) {
  const undo = Object.fromEntries(Object.keys(changes).map((name) => [name, current[name]]));
  current = { ...current, ...changes };
  show();
  status.textContent = "";
  try {
    const response = await fetch(form.dataset.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": form.elements.csrfmiddlewaretoken.value },
      body: JSON.stringify(changes),
    });
    if (!response.ok) throw new Error(String(response.status));
    const saved = await response.json();
    // Answers may overtake each other: each one speaks only for the settings it changed.
    for (const name of Object.keys(changes)) current[name] = saved[name];
  } catch {
    current = { ...current, ...undo };
    status.textContent = t("settings_not_saved");
  }
  show();
}

async function enableNotifications(field) {
  if (!("Notification" in window)) {
    field.checked = false;
    status.textContent = t("notifications_unsupported");
    return;
  }
  const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  if (permission !== "granted") {
    field.checked = false;
    status.textContent = t("notifications_blocked");
    return;
  }
  change({ notifications: true });
}

form.addEventListener("change", (event) => {
  const field = event.target;
  if (field.name === "notifications" && field.checked) enableNotifications(field);
  else change({ [field.name]: field.type === "checkbox" ? field.checked : field.value });
});
soundToggle.addEventListener("click", () => change({ sound: !current.sound }));
document.getElementById("settings-open").addEventListener("click", () => dialog.showModal());
show();
