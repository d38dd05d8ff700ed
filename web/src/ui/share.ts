// Share links: the code, compressed with lz-string, in the URL fragment (#code=...), so it never
// reaches a server and a link opens the same program; with it, what the sharer was looking at:
// the output tab, the example or exercise that was open, and the trace's step (and pass) as
// Python Tutor's permalinks carry theirs (#code=...&tab=trace&example=diamond&step=3).

import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from "lz-string";

export interface SharedState {
  code: string;
  tab?: string; // an output panel's id
  example?: string; // an example's id
  exercise?: string; // an exercise's id
  step?: number; // the open panel's step (the Trace tab's)
  pass?: number; // and its backward pass, when the trace has several
  forward?: number; // 1: the step counts the stepper's recorded forward lines first
}

const NAMES = ["tab", "example", "exercise"] as const;
const NUMBERS = ["step", "pass", "forward"] as const;
const NAME = /^[\w.-]{1,80}$/; // ids only: nothing else from a link reaches the page
const NUMBER = /^\d{1,6}$/;

export function shareUrl(state: SharedState, base: string = location.href): string {
  const url = new URL(base);
  const parts = [`code=${compressToEncodedURIComponent(state.code)}`];
  for (const key of NAMES) {
    const value = state[key];
    if (value && NAME.test(value)) parts.push(`${key}=${encodeURIComponent(value)}`);
  }
  for (const key of NUMBERS) {
    const value = state[key];
    if (value !== undefined && NUMBER.test(String(value))) parts.push(`${key}=${value}`);
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
  for (const key of NAMES) {
    const value = params.get(key);
    if (value && NAME.test(value)) state[key] = value;
  }
  for (const key of NUMBERS) {
    const value = params.get(key);
    if (value && NUMBER.test(value)) state[key] = Number(value);
  }
  return state;
}
