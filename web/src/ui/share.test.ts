import { compressToEncodedURIComponent } from "lz-string";
import { describe, expect, it } from "vitest";
import { shareUrl, stateFromHash } from "./share";

const BASE = "http://127.0.0.1:8000/";

describe("share links", () => {
  it("carry the code and the view back unchanged", () => {
    const state = { code: "x = 1\nprint(x + 1)  # ünïcode ✓", tab: "trace", example: "diamond", step: 3, pass: 1 };
    const url = new URL(shareUrl(state, BASE));
    expect(url.origin + url.pathname).toBe(BASE);
    expect(stateFromHash(url.hash)).toEqual(state);
  });

  it("put the code in the fragment, never in the path or query", () => {
    const url = new URL(shareUrl({ code: "secret = 42" }, BASE + "?lang=zh"));
    expect(url.search).toBe("?lang=zh");
    expect(url.hash.startsWith("#code=")).toBe(true);
    expect(url.href).not.toContain("secret");
  });

  it("survive URLSearchParams turning '+' into a space", () => {
    const code = "a = [1] * 300  # long enough that lz-string's alphabet uses '+'";
    const packed = compressToEncodedURIComponent(code.repeat(20));
    expect(stateFromHash(`#code=${packed.replace(/\+/g, " ")}`)?.code).toBe(code.repeat(20));
  });

  it("drop names and numbers that are not ids", () => {
    const url = shareUrl({ code: "1", tab: "<script>", example: "a b", step: -1, exercise: "03-sum-to" }, BASE);
    expect(stateFromHash(new URL(url).hash)).toEqual({ code: "1", exercise: "03-sum-to" });
    const code = compressToEncodedURIComponent("1");
    expect(stateFromHash(`#code=${code}&tab=x%22onload&step=1e3&pass=7`)).toEqual({ code: "1", pass: 7 });
  });

  it("carry nothing without code, or with code that does not decompress", () => {
    expect(stateFromHash("")).toBeNull();
    expect(stateFromHash("#tab=trace")).toBeNull();
    expect(stateFromHash("#code=%%%not-lz")).toBeNull();
  });
});
