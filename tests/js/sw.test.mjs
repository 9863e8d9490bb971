// The service worker (static/js/sw.js), run in a sandbox with the worker's globals stood in
// for: what it keeps, what it answers offline, and how it shows a push.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SOURCE = readFileSync(new URL("../../static/js/sw.js", import.meta.url), "utf8");
const CONFIG = {
  cache: "durak-offline-abc",
  offline: "/offline/",
  assets: ["/static/css/site.css", "/static/img/icon-192.png"],
  icon: "/static/img/icon-192.png",
  badge: "/static/img/icon-badge-96.png",
};

function worker({ online }) {
  const listeners = {};
  const stored = new Map(); // cache name -> Map(url -> body)
  const shown = [];
  const fetched = [];
  let preloading = false;
  const cacheOf = (name) => {
    if (!stored.has(name)) stored.set(name, new Map());
    const entries = stored.get(name);
    return {
      addAll: async (urls) => urls.forEach((url) => entries.set(url, `body of ${url}`)),
    };
  };
  const sandbox = {
    CONFIG,
    URL,
    self: {
      location: { origin: "https://durak.example" },
      addEventListener: (type, listener) => { listeners[type] = listener; },
      skipWaiting: async () => {},
      clients: { claim: async () => {} },
      registration: {
        showNotification: async (title, options) => shown.push({ title, ...options }),
        navigationPreload: { enable: async () => { preloading = true; } },
      },
    },
    caches: {
      open: async (name) => cacheOf(name),
      keys: async () => [...stored.keys()],
      delete: async (name) => stored.delete(name),
      match: async (url) => {
        for (const entries of stored.values()) if (entries.has(url)) return entries.get(url);
        return undefined;
      },
    },
    fetch: async (request) => {
      fetched.push(request.url);
      if (!online) throw new TypeError("Failed to fetch");
      return `network answer for ${request.url}`;
    },
  };
  vm.runInNewContext(SOURCE, sandbox);
  const dispatch = async (type, event) => {
    let answer;
    let waited;
    listeners[type]({ ...event, respondWith: (value) => { answer = value; }, waitUntil: (value) => { waited = value; } });
    await waited;
    return answer === undefined ? undefined : await answer;
  };
  return { dispatch, stored, shown, fetched, preloading: () => preloading };
}

const get = (path, mode = "no-cors") => ({ request: { method: "GET", mode, url: `https://durak.example${path}` } });

test("installing keeps the offline page and its files, and nothing else", async () => {
  const sw = worker({ online: true });
  await sw.dispatch("install", {});
  assert.deepEqual([...sw.stored.get(CONFIG.cache).keys()], ["/offline/", ...CONFIG.assets]);
});

test("a page the network cannot bring is answered with the offline page", async () => {
  const sw = worker({ online: false });
  await sw.dispatch("install", {});
  assert.equal(await sw.dispatch("fetch", get("/table/5/", "navigate")), "body of /offline/");
  assert.equal(await sw.dispatch("fetch", get("/static/css/site.css")), "body of /static/css/site.css");
});

test("online, pages come from the network, and game data is never answered by the worker", async () => {
  const sw = worker({ online: true });
  await sw.dispatch("install", {});
  assert.equal(await sw.dispatch("fetch", get("/lobby/", "navigate")), "network answer for https://durak.example/lobby/");
  assert.equal(await sw.dispatch("fetch", get("/balance.json")), undefined); // left to the browser
  assert.equal(await sw.dispatch("fetch", { request: { method: "POST", mode: "cors", url: "https://durak.example/push/subscription/" } }), undefined);
  assert.deepEqual([...sw.stored.get(CONFIG.cache).keys()], ["/offline/", ...CONFIG.assets]);
});

test("a page the browser fetched while the worker started is taken as it is", async () => {
  const sw = worker({ online: true });
  const preloadResponse = Promise.resolve("preloaded /lobby/");
  assert.equal(await sw.dispatch("fetch", { ...get("/lobby/", "navigate"), preloadResponse }), "preloaded /lobby/");
  assert.deepEqual(sw.fetched, []);
});

test("activating drops the caches of older workers", async () => {
  const sw = worker({ online: true });
  await sw.dispatch("install", {});
  sw.stored.set("durak-offline-old", new Map([["/offline/", "old"]]));
  await sw.dispatch("activate", {});
  assert.deepEqual([...sw.stored.keys()], [CONFIG.cache]);
  assert.equal(sw.preloading(), true);
});

test("a push shows one notification per tag, which a newer one for the same table replaces", async () => {
  const sw = worker({ online: true });
  const notice = { title: "Ваш ход", body: "Стол №7 ждёт вашего хода.", url: "/table/7/", tag: "durak-table-7" };
  await sw.dispatch("push", { data: { json: () => notice } });
  // The options were made inside the sandbox: compare their JSON.
  assert.deepEqual(JSON.parse(JSON.stringify(sw.shown)), [{
    title: "Ваш ход",
    body: notice.body,
    tag: "durak-table-7",
    renotify: true,
    icon: CONFIG.icon,
    badge: CONFIG.badge,
    data: { url: "/table/7/" },
  }]);
  await sw.dispatch("push", { data: { json: () => { throw new SyntaxError("not JSON"); } } });
  assert.equal(sw.shown.length, 1);
});
