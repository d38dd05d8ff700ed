// Every URL the front end uses, in one place. Paths are relative to the page, so the same build
// works at the server's root and from any static file server (or a sub-folder of one).
//
//   pyodide/<version>/   Pyodide's core files, copied from the pinned npm package
//   wheels/<wheel>       the kael wheel that `make wheel` builds (a valid wheel file name)
//   bytecode/<wheel>.pyc.zip   its modules compiled by Pyodide at build time (a head start only)
//   snapshot/<wheel>.heap.gz   Python's memory with kael imported, made at build time
//                        (scripts/snapshot.mjs), and <wheel>.heap.json: the build it fits
//   data/                the exercises exported at build time (public parts only)
//   api/                 the judge server's JSON API (absent on static hosting)
//   sw.js                the service worker that caches all the rest for offline use

import pkg from "../package.json";

declare const __KAEL_WHEEL__: string;

export const PYODIDE_VERSION: string = pkg.dependencies.pyodide;
export const KAEL_WHEEL: string = __KAEL_WHEEL__;

export interface Urls {
  pyodide: string;
  wheel: string;
  bytecode: string;
  snapshot: string;
  snapshotManifest: string;
  data: string;
  api: string;
  serviceWorker: string;
}

export function resolveUrls(base: string = document.baseURI): Urls {
  const at = (path: string) => new URL(path, base).href;
  return {
    pyodide: at(`pyodide/${PYODIDE_VERSION}/`),
    wheel: at(`wheels/${KAEL_WHEEL}`),
    bytecode: at(`bytecode/${KAEL_WHEEL}.pyc.zip`),
    snapshot: at(`snapshot/${KAEL_WHEEL}.heap.gz`),
    snapshotManifest: at(`snapshot/${KAEL_WHEEL}.heap.json`),
    data: at("data/"),
    api: at("api/"),
    serviceWorker: at("sw.js"),
  };
}
