// Share links, both ways: the link the page was opened with (its code, tab, trace step, example
// or exercise), and the Share button's panel that shows a link to what is on screen now.

import type { OutputPanels } from "../panels/outputs";
import type { PanelPlace } from "../panels/panel";
import { clear, h } from "../ui/dom";
import { t } from "../ui/i18n";
import { shareUrl, stateFromHash, type SharedState } from "../ui/share";
import { storage } from "../ui/storage";
import { DEFAULT_CODE } from "../examples";
import type { Context } from "./context";

/** What the page was opened with; the tab and place are used once, by the first run. */
export class OpenedLink {
  readonly state: SharedState | null;
  private tab: string | null;
  private place: PanelPlace | null;

  constructor() {
    this.state = stateFromHash();
    this.tab = this.state?.tab ?? null;
    // The shared link's trace step: the page runs the code itself once Python is ready, then
    // lands on that step (as a Python Tutor permalink does).
    this.place = this.state?.step !== undefined ? { step: this.state.step, pass: this.state.pass, forward: this.state.forward === 1 || undefined } : null;
    if (!this.state) return;
    // The link's code takes the playground's place; the learner's own code there is kept (the
    // context bar offers it back). A link's code left unchanged is no draft: its link has it.
    if (!this.state.exercise) {
      const draft = storage.playground();
      if (draft !== null && draft !== storage.linkCode()) keepDraft("playground", draft, this.state.code);
      storage.setPlayground(this.state.code);
      storage.setLinkCode(this.state.code);
    }
    // A reload keeps the learner's edits, not the link's code.
    history.replaceState(null, "", location.pathname + location.search);
  }

  get code(): string | null {
    return this.state?.code ?? null;
  }

  /** The link names a trace step: the page should run the code by itself to show it. */
  get wantsRun(): boolean {
    return this.place !== null;
  }

  /** The first run ended: the tab (and place) to open, once, when it succeeded. */
  takeTab(ok: boolean): { tab: string; place: PanelPlace | null } | null {
    const taken = ok && this.tab ? { tab: this.tab, place: this.place } : null;
    this.tab = null;
    this.place = null;
    return taken;
  }
}

/** Keep `draft` (the code a link's `incoming` code replaces) unless it is the same code or the
 * untouched default. */
export function keepDraft(where: string, draft: string | null, incoming: string): void {
  if (draft === null || draft.trim() === incoming.trim() || draft.trim() === DEFAULT_CODE.trim()) return;
  storage.keep(where, draft, "draft");
}

/** The panel under the header that shows a share link and copies it. */
export class SharePanel {
  readonly element = h("div", { class: "share-panel", hidden: true });

  hide(): void {
    this.element.hidden = true;
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  async show(state: SharedState): Promise<void> {
    const url = shareUrl(state, location.origin + location.pathname);
    // The link shows at once (a second Share never leaves the last link on view while the
    // clipboard answers); the note says "copied" once the clipboard took it.
    clear(this.element);
    const note = h("span", {}, t("share.ready"));
    const input = h("input", { type: "text", readonly: true, value: url, class: "share-url", "aria-label": t("share.label") });
    const close = h("button", { type: "button", class: "link", onclick: () => this.hide() }, t("action.close"));
    this.element.append(note, input, close);
    this.element.hidden = false;
    input.select();
    input.focus();
    try {
      await navigator.clipboard.writeText(url);
      if (input.isConnected) note.textContent = t("share.copied");
    } catch {
      // not allowed here: the link is selected for the learner to copy
    }
  }
}

/** What is on screen now, for the Share button: the code, the open tab and its place, and the
 * example or exercise it came from. */
export function currentState(code: string, outputs: OutputPanels, context: Context, example: string | null): SharedState {
  const place = outputs.panel(outputs.tabs.active)?.place?.() ?? null;
  return {
    code,
    tab: outputs.tabs.active,
    step: place?.step,
    pass: place?.pass,
    forward: place?.forward ? 1 : undefined,
    example: context.kind === "playground" ? (example ?? undefined) : undefined,
    exercise: context.kind === "exercise" ? context.id : undefined,
  };
}
