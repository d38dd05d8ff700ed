import { existsSync, readdirSync } from "node:fs";
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

function wheelName(): string {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "public", "wheels");
  const wheels = existsSync(dir) ? readdirSync(dir).filter((n: string) => n.endsWith("-py3-none-any.whl")) : [];
  if (wheels.length !== 1) throw new Error("public/wheels/ must hold one kael wheel: run `node scripts/prepare.mjs`");
  return wheels[0];
}

export default defineConfig({
  base: "./",
  plugins: [securityHeaders()],
  define: { __KAEL_WHEEL__: JSON.stringify(wheelName()) },
  worker: { format: "es" },
  build: { target: "es2022", chunkSizeWarningLimit: 2000 },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1" },
});
