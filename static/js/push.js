// «Notify me of my move» on this device: Web Push through the service worker. The server keeps
// each device's subscription (POST to subscribe, DELETE to stop) and sends the pushes.
import { isIosSafari } from "./install.js";

/** The VAPID public key (base64url) as the bytes PushManager.subscribe takes. */
export function applicationServerKey(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

/**
 * Whether this browser can take pushes: "ok", "install_first" (Safari on iOS takes them only
 * in the app added to the home screen) or "unsupported".
 */
export function pushAvailability({ serviceWorker, pushManager, notification, userAgent = "", maxTouchPoints = 0, standalone = false }) {
  if (isIosSafari(userAgent, maxTouchPoints) && !standalone) return "install_first";
  return serviceWorker && pushManager && notification ? "ok" : "unsupported";
}

/** Wire up an opt-in block ([data-push-optin]): its button, its status lines. */
export function bindPushOptIn(block, win = window) {
  const button = block.querySelector("[data-push-toggle]");
  const say = (name) => {
    for (const line of block.querySelectorAll("[data-push-status]")) line.hidden = line.dataset.pushStatus !== name;
  };
  const availability = pushAvailability({
    serviceWorker: "serviceWorker" in win.navigator,
    pushManager: "PushManager" in win,
    notification: "Notification" in win,
    userAgent: win.navigator.userAgent,
    maxTouchPoints: win.navigator.maxTouchPoints,
    standalone: win.matchMedia("(display-mode: standalone)").matches || win.navigator.standalone === true,
  });
  if (availability !== "ok") {
    say(availability);
    return;
  }
  const send = (method, body) => fetch(block.dataset.url, {
    method,
    headers: { "Content-Type": "application/json", "X-CSRFToken": block.querySelector("[name=csrfmiddlewaretoken]").value },
    body: JSON.stringify(body),
  });
  let subscription = null;
  const show = () => {
    button.textContent = subscription ? block.dataset.labelOff : block.dataset.labelOn;
    button.setAttribute("aria-pressed", String(Boolean(subscription)));
    button.hidden = false;
  };
  const subscribe = async (registration) => {
    const permission = await win.Notification.requestPermission();
    if (permission !== "granted") {
      say("blocked");
      return;
    }
    const fresh = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: applicationServerKey(block.dataset.key),
    });
    const response = await send("POST", fresh.toJSON());
    if (!response.ok) {
      await fresh.unsubscribe();
      say("failed");
      return;
    }
    subscription = fresh;
    say("on");
  };
  const unsubscribe = async () => {
    const endpoint = subscription.endpoint;
    await subscription.unsubscribe();
    subscription = null;
    await send("DELETE", { endpoint });
    say("off");
  };
  win.navigator.serviceWorker.ready.then(async (registration) => {
    subscription = await registration.pushManager.getSubscription();
    // A subscribed device is posted again: it now notifies whoever is logged in here, in the
    // language of this page.
    if (subscription) send("POST", subscription.toJSON()).catch(() => {});
    say(subscription ? "on" : "off");
    show();
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await (subscription ? unsubscribe() : subscribe(registration));
      } catch {
        say("failed");
      } finally {
        button.disabled = false;
        show();
      }
    });
  });
}
