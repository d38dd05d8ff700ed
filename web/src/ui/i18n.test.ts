import { describe, expect, it } from "vitest";
import { gt } from "../graph/strings";
import { bind, currentLang, setLang, t, type Key } from "./i18n";

describe("UI text", () => {
  it("fills placeholders and keeps the ones it is not given", () => {
    setLang("en");
    expect(t("console.finished", { seconds: "1.2 s" })).toContain("1.2 s");
    expect(t("status.ready.detail", { python: "3.12" })).toMatch(/Python 3\.12 .*\{pyodide\}/);
  });

  it("switches language, keeps the choice and the document's lang", () => {
    setLang("zh");
    expect(currentLang()).toBe("zh");
    expect(localStorage.getItem("kael.lang")).toBe("zh");
    expect(document.documentElement.lang).toBe("zh-CN");
    expect(t("action.run")).not.toBe("Run");
    setLang("en");
    expect(t("action.run")).toBe("Run");
  });

  it("shows a data key it has no text for as the key itself", () => {
    expect(t("verdict.Accepted")).toBe("Accepted");
    expect(t("verdict.Something New")).toBe("verdict.Something New");
  });

  it("keeps bound elements and attributes in the current language, for keys and inline text", () => {
    setLang("en");
    const button = document.createElement("button");
    bind(button, "action.stop");
    bind(button, { en: "Memory", zh: "内存" }, "title");
    expect([button.textContent, button.title]).toEqual(["Stop", "Memory"]);
    setLang("zh");
    expect([button.textContent, button.title]).toEqual([t("action.stop"), "内存"]);
    setLang("en");
  });

  it("types its keys: a mistyped key does not compile", () => {
    // @ts-expect-error "action.rnu" is not a key; tsc (npm run typecheck) fails if it ever is.
    const wrong: Key = "action.rnu";
    expect(t(wrong)).toBe("action.rnu");
  });

  it("gives the graph views their words from the same tables, in both languages", () => {
    setLang("en");
    expect(gt("laying", { items: 3 })).toBe("Laying out 3 boxes…");
    expect(gt("laying", { items: 3 })).toBe(t("view.laying", { items: 3 }));
    setLang("zh");
    expect(gt("laying", { items: 3 })).toBe("正在布局 3 个方框…");
    setLang("en");
  });
});
