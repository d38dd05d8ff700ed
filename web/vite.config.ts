import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

// The headers the judge server sends (server/app.py): cross-origin isolation, so that Stop can
// interrupt Python through a SharedArrayBuffer, and nothing loaded from other origins.
export const SECURITY_HEADERS: Record<string, string> = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
};

function securityHeaders(): Plugin {
  const add = (_req: unknown, res: { setHeader(name: string, value: string): void }, next: () => void) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    next();
  };
  return {
    name: "kael-security-headers",
    configureServer(server) {
      server.middlewares.use(add);
    },
    configurePreviewServer(server) {
      server.middlewares.use(add);
    },
  };
}

const WEB = path.dirname(fileURLToPath(import.meta.url));

/** Every file under `dir`, as paths relative to it with "/" separators, sorted. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => entry.isDirectory()
      ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`])
    .sort();
}

/**
 * Writes dist/sw.js (the service worker that makes the playground work offline) from
 * scripts/service-worker.js once the build is written: the list of every built file (the app,
 * Pyodide under pyodide/<version>/, the wheel, the exercise data) and a version that hashes
 * their paths and contents, so any change to any file makes a new cache. api/ (the judge, or
 * the static stand-in for it) is left out: it is never served from the cache.
 */
function offlineCache(): Plugin {
  let outDir = "";
  return {
    name: "kael-offline-cache",
    apply: "build",
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const files = filesUnder(outDir).filter((f) => f !== "sw.js" && !f.startsWith("api/") && f !== "index.html");
      const hash = createHash("sha256");
      for (const file of files) hash.update(file).update("\0").update(readFileSync(path.join(outDir, file))).update("\0");
      hash.update(readFileSync(path.join(outDir, "index.html")));
      const template = readFileSync(path.join(WEB, "scripts", "service-worker.js"), "utf8");
      const source = template
        .replace("const VERSION = __KAEL_SW_VERSION__;", `const VERSION = ${JSON.stringify(hash.digest("hex").slice(0, 16))};`)
        .replace("const FILES = __KAEL_SW_FILES__;", `const FILES = ${JSON.stringify(files)};`);
      if (source.includes("= __KAEL_SW_")) throw new Error("scripts/service-worker.js: a placeholder was not filled in");
      writeFileSync(path.join(outDir, "sw.js"), source);
    },
  };
}

function wheelName(): string {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "public", "wheels");
  const wheels = existsSync(dir) ? readdirSync(dir).filter((n: string) => n.endsWith("-py3-none-any.whl")) : [];
  if (wheels.length !== 1) throw new Error("public/wheels/ must hold one kael wheel: run `node scripts/prepare.mjs`");
  return wheels[0];
}

export default defineConfig({
  base: "./",
  plugins: [securityHeaders(), offlineCache()],
  define: { __KAEL_WHEEL__: JSON.stringify(wheelName()) },
  worker: { format: "es" },
  build: {
    target: "es2022",
    chunkSizeWarningLimit: 2000,
    // The playground, and the class pages (a teacher's dashboard, a learner's join page).
    rollupOptions: { input: { main: path.join(WEB, "index.html"), teacher: path.join(WEB, "teacher.html"),
                              join: path.join(WEB, "join.html") } },
  },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1" },
});
