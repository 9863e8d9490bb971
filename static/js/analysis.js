// The analysis page while the analysis runs: show its progress, and reload once it is done.
import { t } from "./i18n.js";

const box = document.querySelector("[data-progress-url]");
const bar = document.getElementById("analysis-progress");
const status = document.getElementById("analysis-status");
const POLL_MS = 1000;

async function poll() {
  try {
    const response = await fetch(box.dataset.progressUrl, { headers: { Accept: "application/json" } });
    if (response.ok) {
      const progress = await response.json();
      if (progress.status === "done" || progress.status === "failed") {
        window.location.reload();
        return;
      }
      if (progress.total) {
        bar.max = progress.total;
        bar.value = progress.done;
        status.textContent = t("analysis_progress", { done: progress.done, total: progress.total });
      }
    }
  } catch {
    // Offline for a moment: the next poll tries again.
  }
  setTimeout(poll, POLL_MS);
}

setTimeout(poll, POLL_MS);
