// What the class pages share with the playground: the header (back to the playground,
// language, theme) and the page's theme and language applied before anything is drawn.

import { h } from "../ui/dom";
import { bind, currentLang, setLang } from "../ui/i18n";
import { applyTheme, initialTheme, type Theme } from "../ui/theme";
import type { Key } from "../ui/i18n";

export function pageHeader(titleKey: Key): HTMLElement {
  let theme: Theme = initialTheme();
  applyTheme(theme);
  const title = h("h1", { class: "class-title" });
  bind(title, titleKey);
  const lang = h("button", { type: "button", class: "ghost", onclick: () => setLang(currentLang() === "en" ? "zh" : "en") });
  bind(lang, "action.lang");
  bind(lang, "action.lang.title", "title");
  const themeButton = h("button", { type: "button", class: "ghost" });
  const drawTheme = () => {
    themeButton.textContent = theme === "dark" ? "☀" : "☾";
    bind(themeButton, theme === "dark" ? "action.theme.light" : "action.theme.dark", "aria-label");
  };
  themeButton.addEventListener("click", () => {
    theme = theme === "dark" ? "light" : "dark";
    applyTheme(theme);
    drawTheme();
  });
  drawTheme();
  const home = h("a", { href: "./", class: "brand" });
  bind(home, "app.title");
  return h("header", { class: "class-header" }, home, title, h("span", { class: "spacer" }), lang, themeButton);
}

/** A date as the reader's locale writes it (in their time zone), or "—". */
export function when(iso: string | null): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(currentLang() === "zh" ? "zh-CN" : undefined,
    { dateStyle: "medium", timeStyle: "short" });
}

export function verdictClass(verdict: string | null): string {
  return `verdict-${(verdict ?? "none").toLowerCase().replace(/[^a-z]+/g, "-")}`;
}
