// The service worker, served at /sw.js by durak_site.web.app_shell, which puts CONFIG before this
// text: { cache, offline, assets, icon, badge }. It keeps the offline page and the files that
// page loads, and nothing else; a page the network cannot bring is answered with the offline
// page. Game pages and API answers are never cached. It also shows the site's pushes.
/* global CONFIG */

const KEPT = new Set([CONFIG.offline, ...CONFIG.assets]);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CONFIG.cache)
      .then((cache) => cache.addAll([CONFIG.offline, ...CONFIG.assets]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name !== CONFIG.cache).map((name) => caches.delete(name))))
      // A page's request starts while the worker itself starts, not after it.
      .then(() => self.registration.navigationPreload?.enable())
      .then(() => self.clients.claim()),
  );
});

async function navigate(event) {
  try {
    return (await event.preloadResponse) || (await fetch(event.request));
  } catch {
    return caches.match(CONFIG.offline);
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(event));
    return;
  }
  const url = new URL(request.url);
  if (url.origin === self.location.origin && KEPT.has(url.pathname)) {
    // The offline page's own files: from the network while there is one, kept for when not.
    event.respondWith(fetch(request).catch(() => caches.match(url.pathname)));
  }
});

self.addEventListener("push", (event) => {
  let notice;
  try {
    notice = event.data.json();
  } catch {
    return;
  }
  // The same tag replaces the table's previous notification instead of piling up.
  event.waitUntil(self.registration.showNotification(notice.title, {
    body: notice.body,
    tag: notice.tag,
    renotify: true,
    icon: CONFIG.icon,
    badge: CONFIG.badge,
    data: { url: notice.url },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url === target);
      return open ? open.focus() : self.clients.openWindow(target);
    }),
  );
});
