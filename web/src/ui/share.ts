// Share links: the code, compressed with lz-string, in the URL fragment (#code=...), so it never
// reaches a server and a link opens the same program; with it, what the sharer was looking at:
// the output tab, and the example or exercise that was open (#code=...&tab=trace&example=diamond).

import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from "lz-string";

export interface SharedState {
  code: string;
  tab?: string; // an output panel's id
  example?: string; // an example's id
  exercise?: string; // an exercise's id
}

const NAME = /^[\w.-]{1,80}$/; // ids only: nothing else from a link reaches the page

export function shareUrl(state: SharedState, base: string = location.href): string {
  const url = new URL(base);
  const parts = [`code=${compressToEncodedURIComponent(state.code)}`];
  for (const key of ["tab", "example", "exercise"] as const) {
    const value = state[key];
    if (value && NAME.test(value)) parts.push(`${key}=${encodeURIComponent(value)}`);
  }
  url.hash = parts.join("&");
  return url.href;
}

/** The state carried by a share link's fragment, or null when it carries no code. */
export function stateFromHash(hash: string = location.hash): SharedState | null {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const packed = params.get("code");
  if (!packed) return null;
  // URLSearchParams turns '+' into ' '; lz-string's URI alphabet uses '+'.
  const code = decompressFromEncodedURIComponent(packed.replace(/ /g, "+"));
  if (typeof code !== "string" || code.length === 0) return null;
  const state: SharedState = { code };
  for (const key of ["tab", "example", "exercise"] as const) {
    const value = params.get(key);
    if (value && NAME.test(value)) state[key] = value;
  }
  return state;
}
