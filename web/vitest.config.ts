// Unit tests of the front end's pure modules (web/src/**/*.test.ts), run by `npm test` and by
// `make test`'s web lane. Separate from vite.config.ts, which needs a built kael wheel in
// public/wheels/: these tests need no build. jsdom gives the modules that read the browser
// (localStorage, location, DOMPurify's HTML parser) a document.

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    environment: "jsdom",
    environmentOptions: { jsdom: { url: "http://127.0.0.1:8000/" } },
    restoreMocks: true,
  },
});
