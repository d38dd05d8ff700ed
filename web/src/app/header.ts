// The header: the brand, Run / Stop / Share, the runtime status, language and theme.

import { h } from "../ui/dom";
import { bind, currentLang, setLang, type Key } from "../ui/i18n";

/** A header button: a glyph, a label and a tooltip, both kept in the current language. */
function actionButton(cls: string, glyph: string, label: Key, title: Key, onclick: () => void): HTMLButtonElement {
  const button = h("button", { type: "button", class: cls, disabled: true, onclick });
  const text = h("span", {});
  bind(text, label);
  button.append(h("span", { "aria-hidden": "true", class: "glyph" }, `${glyph} `), text);
  bind(button, title, "title");
  return button;
}

/** To the class pages (join.html; a teacher goes on from there to teacher.html). */
function classLink(): HTMLAnchorElement {
  const link = h("a", { href: "join.html", class: "pref class-link" });
  bind(link, "nav.classes");
  bind(link, "nav.classes.title", "title");
  return link;
}

export interface HeaderParts {
  run: () => void;
  stop: () => void;
  share: () => void;
  status: HTMLElement;
  themeButton: HTMLElement;
}

export class Header {
  readonly element: HTMLElement;
  readonly runButton: HTMLButtonElement;
  readonly stopButton: HTMLButtonElement;

  constructor(parts: HeaderParts) {
    this.runButton = actionButton("primary run", "▶", "action.run", "action.run.title", parts.run);
    this.stopButton = actionButton("stop", "■", "action.stop", "action.stop.title", parts.stop);
    const shareButton = h("button", { type: "button", class: "share", onclick: parts.share });
    bind(shareButton, "action.share");
    bind(shareButton, "action.share.title", "title");
    const langButton = h("button", { type: "button", class: "pref", onclick: () => setLang(currentLang() === "en" ? "zh" : "en") });
    bind(langButton, "action.lang");
    bind(langButton, "action.lang.title", "aria-label");
    bind(langButton, "action.lang.title", "title");
    const title = h("h1", {});
    bind(title, "app.title");
    const tagline = h("span", { class: "tagline" });
    bind(tagline, "app.tagline");
    this.element = h(
      "header",
      { class: "topbar" },
      h("div", { class: "brand" }, h("span", { class: "logo", "aria-hidden": "true" }, "∂"), title, tagline),
      h("div", { class: "run-controls" }, this.runButton, this.stopButton, shareButton),
      parts.status,
      h("div", { class: "prefs" }, classLink(), langButton, parts.themeButton),
    );
  }

  /** Run is offered only while Python is ready; Stop only while it runs. */
  setRunning(running: boolean, ready: boolean): void {
    this.runButton.disabled = running || !ready;
    this.stopButton.disabled = !running;
  }
}
