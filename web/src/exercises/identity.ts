// The browser's identity at the judge: a client token the server issued (POST api/clients),
// kept in localStorage under one key, shared by every page of the origin (the playground, the
// class page). Errors are values, as in api.ts.

const TOKEN_KEY = "kael.client";

export type Result<T> =
  | { ok: true; value: T }
  | { ok: false; message: string; status?: number; unreachable?: boolean; retryAfter?: number };

/** fetch as a Result: the server's `detail` on an error status (and its `Retry-After`, in
 * seconds, when it sent one), `unreachable` on no answer. */
export async function getJson<T>(url: string, init?: RequestInit): Promise<Result<T>> {
  try {
    const response = await fetch(url, { credentials: "same-origin", ...init });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!response.ok) {
      const detail = (body as { detail?: unknown } | null)?.detail;
      const message = typeof detail === "string" ? detail : `${response.status} ${response.statusText}`;
      const retryAfter = response.headers.get("Retry-After")?.trim() ?? "";
      return /^\d+$/.test(retryAfter) // seconds; the HTTP-date form is not used by the judge
        ? { ok: false, message, status: response.status, retryAfter: Number(retryAfter) }
        : { ok: false, message, status: response.status };
    }
    if (body === null) return { ok: false, message: `not JSON: ${url}` };
    return { ok: true, value: body as T };
  } catch (error) {
    return { ok: false, message: String((error as Error)?.message ?? error), unreachable: true };
  }
}

interface Saved {
  header: string;
  token: string;
}

/** The identity this browser keeps, if it has one (never mints). */
export function savedIdentity(): Saved | null {
  try {
    const saved = JSON.parse(localStorage.getItem(TOKEN_KEY) ?? "null") as Saved | null;
    return saved?.header && saved.token ? saved : null;
  } catch {
    return null;
  }
}

/** A client token as the server issues them (server/core/identity.py); its signature only the server checks. */
export const TOKEN_PATTERN = /^k1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

export class ClientIdentity {
  private identity: Promise<Record<string, string>> | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: string) {}

  /** Called when this browser gets an identity (minted for a first submission, or adopted). */
  onIdentity(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Take an identity from another browser (its learner key), once the server said it is its own. */
  adopt(token: string, header = "X-Client-Token"): void {
    try {
      localStorage.setItem(TOKEN_KEY, JSON.stringify({ header, token }));
    } catch {
      // not kept: this visit uses it all the same
    }
    this.identity = Promise.resolve({ [header]: token });
    this.listeners.forEach((listener) => listener());
  }

  /** A request made only when this browser already has an identity (none is minted for it). */
  async fetchKnown<T>(url: string, init: RequestInit = {}): Promise<Result<T>> {
    const saved = savedIdentity();
    if (!saved) return { ok: false, message: "this browser has no identity at the judge", status: 401 };
    return getJson<T>(url, { ...init, headers: { ...(init.headers as object), [saved.header]: saved.token } });
  }

  /** The header naming this browser; a server that issues no token gets no header. */
  headers(): Promise<Record<string, string>> {
    this.identity ??= (async () => {
      const kept = savedIdentity(); // unreadable or none: mint a new one
      if (kept) return { [kept.header]: kept.token };
      const minted = await getJson<{ token: string; header?: string }>(`${this.api}clients`, { method: "POST" });
      if (!minted.ok) {
        this.identity = null; // try again next time (offline now, or the judge is down)
        return {};
      }
      const saved = { header: minted.value.header ?? "X-Client-Token", token: minted.value.token };
      try {
        localStorage.setItem(TOKEN_KEY, JSON.stringify(saved));
      } catch {
        // not kept: a new identity next visit
      }
      queueMicrotask(() => this.listeners.forEach((listener) => listener()));
      return { [saved.header]: saved.token };
    })();
    return this.identity;
  }

  /** A request that needs the identity; a token the server no longer knows is replaced once. */
  async fetch<T>(url: string, init: RequestInit = {}): Promise<Result<T>> {
    const send = async () => getJson<T>(url, { ...init, headers: { ...(init.headers as object), ...(await this.headers()) } });
    const result = await send();
    if (result.ok || result.status !== 401) return result;
    localStorage.removeItem(TOKEN_KEY);
    this.identity = null;
    return send();
  }
}
