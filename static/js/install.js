// Installing the site as an app: the browser's own prompt where it offers one
// (beforeinstallprompt), and the steps by hand on an iPhone or iPad, whose Safari has no prompt.

const DISMISSED_KEY = "durak.installHintDismissed";

/** Whether the browser is Safari on iOS or iPadOS (which reports itself as a Mac with touch). */
export function isIosSafari(userAgent, maxTouchPoints = 0) {
  const apple = /iP(hone|od|ad)/.test(userAgent) || (/Macintosh/.test(userAgent) && maxTouchPoints > 1);
  const other = /CriOS|FxiOS|EdgiOS|OPiOS|YaBrowser|DuckDuckGo|GSA\//.test(userAgent);
  return apple && /Safari\//.test(userAgent) && !other;
}

/**
 * What to offer: "prompt" (an install button), "ios" (the Share steps), or null (nothing: the
 * app is installed already, the player closed the hint, or the browser cannot install).
 */
export function installOffer({ userAgent, maxTouchPoints = 0, standalone = false, dismissed = false, promptable = false }) {
  if (standalone || dismissed) return null;
  if (promptable) return "prompt";
  return isIosSafari(userAgent, maxTouchPoints) ? "ios" : null;
}

/** Wire up the hint (#install-hint) of the page, if it has one. */
export function bindInstallHint(doc = document, win = window) {
  const hint = doc.getElementById("install-hint");
  if (!hint) return;
  let deferred = null;
  const situation = () => ({
    userAgent: win.navigator.userAgent,
    maxTouchPoints: win.navigator.maxTouchPoints,
    standalone: win.matchMedia("(display-mode: standalone)").matches || win.navigator.standalone === true,
    dismissed: win.localStorage.getItem(DISMISSED_KEY) === "1",
    promptable: deferred !== null,
  });
  const show = () => {
    const offer = installOffer(situation());
    hint.hidden = offer === null;
    for (const part of hint.querySelectorAll("[data-install]")) part.hidden = part.dataset.install !== offer;
  };
  win.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault(); // the page's own button asks, when the player wants it
    deferred = event;
    show();
  });
  win.addEventListener("appinstalled", () => {
    deferred = null;
    hint.hidden = true;
  });
  hint.querySelector("[data-install-button]").addEventListener("click", async () => {
    if (!deferred) return;
    const prompt = deferred;
    deferred = null;
    await prompt.prompt();
    show();
  });
  hint.querySelector("[data-dismiss]").addEventListener("click", () => {
    win.localStorage.setItem(DISMISSED_KEY, "1");
    show();
  });
  show();
}
