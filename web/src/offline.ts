// Offline use after the first visit: registers the service worker the build writes (sw.js,
// see scripts/service-worker.js). Only for a built page served over http(s), by the judge server
// or a static host; never in the Vite dev server, whose files change under it.

import { resolveUrls } from "./config";

export function registerServiceWorker(): void {
  if (import.meta.env.DEV || !("serviceWorker" in navigator)) return;
  if (location.protocol !== "http:" && location.protocol !== "https:") return;
  navigator.serviceWorker.register(resolveUrls().serviceWorker).catch((error: unknown) => {
    console.warn("offline use is not available: the service worker did not register", error);
  });
}
