import { afterEach, describe, expect, it, vi } from "vitest";
import { getJson } from "./identity";

function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  vi.stubGlobal("fetch", async () => new Response(JSON.stringify(body), { status, headers }));
}

describe("getJson", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("gives the server's detail, status and Retry-After (seconds) on an error", async () => {
    answer(429, { detail: "too many progress writes" }, { "Retry-After": "17" });
    expect(await getJson("/api/progress")).toEqual({ ok: false, message: "too many progress writes", status: 429, retryAfter: 17 });
  });

  it("leaves out a Retry-After that is absent or not a number of seconds", async () => {
    answer(503, { detail: "busy" });
    expect(await getJson("/api/x")).toEqual({ ok: false, message: "busy", status: 503 });
    answer(503, { detail: "busy" }, { "Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT" });
    expect(await getJson("/api/x")).toEqual({ ok: false, message: "busy", status: 503 });
  });

  it("says unreachable when no answer came", async () => {
    vi.stubGlobal("fetch", async () => {
      throw new TypeError("Failed to fetch");
    });
    expect(await getJson("/api/x")).toMatchObject({ ok: false, unreachable: true });
  });
});
