// The browser's identity at the judge: a client token the server issued (POST api/clients),
// kept in localStorage under one key, shared by every page of the origin (the playground, the
// class page). Errors are values, as in api.ts.

const TOKEN_KEY = "kael.client";

export type Result<T> = { ok: true; value: T } | { ok: false; message: string; status?: number; unreachable?: boolean };

/** fetch as a Result: the server's `detail` on an error status, `unreachable` on no answer. */
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
      return { ok: false, message, status: response.status };
    }
    if (body === null) return { ok: false, message: `not JSON: ${url}` };
    return { ok: true, value: body as T };
  } catch (error) {
    return { ok: false, message: String((error as Error)?.message ?? error), unreachable: true };
  }
}

export class ClientIdentity {
  private identity: Promise<Record<string, string>> | null = null;

  constructor(private readonly api: string) {}

  /** The header naming this browser; a server that issues no token gets no header. */
  headers(): Promise<Record<string, string>> {
    this.identity ??= (async () => {
      try {
        const saved = JSON.parse(localStorage.getItem(TOKEN_KEY) ?? "null") as { header: string; token: string } | null;
        if (saved?.header && saved.token) return { [saved.header]: saved.token };
      } catch {
        // unreadable: mint a new one
      }
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
