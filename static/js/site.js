// Behaviour every page shares. Pages carry no inline handlers (the Content-Security-Policy
// allows scripts from this site's files only), so they are wired up here.
import { bindInstallHint } from "./install.js";
import { minutesPlayed, nextReminderAt } from "./play_reminder.js";
import { bindPushOptIn } from "./push.js";

// The service worker (static/js/sw.js) shows the offline page and the pushes; it is served
// from the site's root so that it controls every page.
const manifest = document.querySelector("link[rel=manifest][data-service-worker]");
if (manifest && "serviceWorker" in navigator) {
  navigator.serviceWorker.register(manifest.dataset.serviceWorker, { scope: "/" }).catch(() => {
    // No worker (a private window, an old browser): the pages work without it.
  });
}
bindInstallHint();
for (const block of document.querySelectorAll("[data-push-optin]")) bindPushOptIn(block);

for (const select of document.querySelectorAll("select[data-submit-on-change]")) {
  select.addEventListener("change", () => select.form.submit());
}

// The play-time reminder a player set for himself: counted from the first page of this
// browser session, shown every chosen number of minutes.
const reminder = document.getElementById("play-reminder");
if (reminder) {
  const minutes = Number(reminder.dataset.minutes);
  const key = "durak.playStart";
  const start = Number(sessionStorage.getItem(key)) || Date.now();
  sessionStorage.setItem(key, String(start));
  const schedule = () => {
    window.setTimeout(() => {
      reminder.querySelector("[data-elapsed]").textContent = String(minutesPlayed(start, Date.now()));
      reminder.hidden = false;
      reminder.querySelector("[data-dismiss]").focus();
    }, nextReminderAt(start, Date.now(), minutes) - Date.now());
  };
  reminder.querySelector("[data-dismiss]").addEventListener("click", () => {
    reminder.hidden = true;
    schedule();
  });
  schedule();
}
