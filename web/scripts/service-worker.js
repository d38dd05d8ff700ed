// The playground's service worker: after the first visit the page, Pyodide and the kael wheel
// come from this cache, so the playground, the examples and "Run tests" work with no network.
//
// This file is a template: the build (vite.config.ts, offlineCache) writes it to dist/sw.js with
// __KAEL_SW_VERSION__ (a hash of every built file) and __KAEL_SW_FILES__ (their paths, relative
// to this script) filled in. A new build is a new version: its worker installs a new cache and,
// on activate, deletes every older one.
//
// Responses are cached whole (Response objects, headers included), so a page served from the
// cache keeps its Cross-Origin-Opener/Embedder-Policy headers and stays cross-origin isolated.
// The judge's API (api/) is never cached: it always goes to the network, and fails offline.

const VERSION = __KAEL_SW_VERSION__;
const FILES = __KAEL_SW_FILES__;
const PREFIX = "kael-offline-";
const CACHE = PREFIX + VERSION;
const SCOPE = new URL("./", self.location.href);
const SHELL = SCOPE.href; // the page itself, as the server serves it at the scope's root

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // cache: "reload" skips the HTTP cache: the files of this build, not older copies.
      const urls = [SHELL, ...FILES.map((file) => new URL(file, SCOPE).href)];
      await cache.addAll(urls.map((url) => new Request(url, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

function cacheable(url) {
  return url.origin === SCOPE.origin && url.href.startsWith(SCOPE.href) && !url.href.startsWith(SCOPE.href + "api/");
}

/** The page: from the network when it answers (a new build shows at once), else the cached one. */
async function page(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const cached = await caches.match(SHELL, { cacheName: CACHE });
    if (cached) return cached;
    throw error;
  }
}

/** Every other file of the build: its path names its version, so the cached copy is current. */
async function file(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
  return cached ?? fetch(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (!cacheable(url)) return;
  event.respondWith(request.mode === "navigate" ? page(request) : file(request));
});
