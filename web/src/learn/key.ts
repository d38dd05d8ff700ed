// "Continue in another browser": the learner key (this browser's client token at the judge,
// exercises/identity.ts) shown on request, and a key from another browser taken here once the
// judge says it issued it. The judge keeps the progress of a key (server/progress.py), so the
// same key in two browsers shows the same progress. There is no other sign-in: the key is it.

import type { Result, ServerProgress } from "../exercises/api";
import { h } from "../ui/dom";
import { currentLang, type Localized } from "../ui/i18n";

export interface LearnerKeys {
  learnerKey(): string | null;
  useLearnerKey(key: string): Promise<Result<ServerProgress>>;
}

const TEXT = {
  summary: { en: "Continue in another browser", zh: "在另一个浏览器中继续" },
  intro: {
    en: "With a learner key, this server keeps your progress too: the same key in another browser shows it there. The key is made the first time you open an exercise. Keep it to yourself: it also opens your submissions.",
    zh: "有了学习者密钥，服务器也会保存你的进度：在另一个浏览器中使用同一个密钥即可看到它。第一次打开习题时生成密钥。请勿告诉他人：它也能打开你的提交记录。",
  },
  yours: { en: "This browser's learner key", zh: "本浏览器的学习者密钥" },
  none: { en: "No learner key yet: open an exercise once and it is made.", zh: "还没有学习者密钥：打开一次习题即可生成。" },
  copy: { en: "Copy", zh: "复制" },
  copied: { en: "Copied.", zh: "已复制。" },
  other: { en: "A learner key from another browser", zh: "来自另一个浏览器的学习者密钥" },
  use: { en: "Use this key here", zh: "在此使用该密钥" },
  used: { en: "This browser now uses that key: its progress is merged here.", zh: "本浏览器现在使用该密钥：其进度已合并到这里。" },
  format: { en: "That is not a learner key: one starts with k1. and has two dots.", zh: "这不是学习者密钥：密钥以 k1. 开头，含两个点。" },
  unknown: { en: "This server did not issue that key.", zh: "该密钥不是本服务器签发的。" },
  failed: { en: "The server did not answer: {message}", zh: "服务器没有回应：{message}" },
} satisfies Record<string, Localized>;

const tr = (text: Localized, message = "") => text[currentLang()].replace("{message}", message);

/** The panel; `used()` runs after another browser's key was taken (merge and re-render). */
export function learnerKeyPanel(keys: LearnerKeys, used: () => Promise<void>, open: boolean): HTMLElement {
  const key = keys.learnerKey();
  const status = h("p", { class: "muted small key-status", role: "status" });
  const mine = key
    ? h(
        "div",
        { class: "key-row" },
        h("label", { for: "learner-key-mine" }, tr(TEXT.yours)),
        h("input", { id: "learner-key-mine", class: "key-value", readonly: true, value: key, spellcheck: "false", onfocus: (e: Event) => (e.target as HTMLInputElement).select() }),
        h("button", { type: "button", class: "key-copy", onclick: () => void navigator.clipboard?.writeText(key).then(() => (status.textContent = tr(TEXT.copied)), () => undefined) }, tr(TEXT.copy)),
      )
    : h("p", { class: "muted small" }, tr(TEXT.none));
  const input = h("input", { id: "learner-key-other", class: "key-value", autocomplete: "off", spellcheck: "false", name: "learner-key" });
  const form = h(
    "form",
    { class: "key-row" },
    h("label", { for: "learner-key-other" }, tr(TEXT.other)),
    input,
    h("button", { type: "submit", class: "key-use" }, tr(TEXT.use)),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void keys.useLearnerKey(input.value).then(async (answer) => {
      if (answer.ok) {
        await used();
        document.querySelector<HTMLElement>(".learner-key .key-status")?.replaceChildren(tr(TEXT.used));
        return;
      }
      status.textContent = answer.status === 422 ? tr(TEXT.format) : answer.status === 401 ? tr(TEXT.unknown) : tr(TEXT.failed, answer.message);
    });
  });
  return h(
    "details",
    { class: "learner-key", "data-testid": "learner-key", open },
    h("summary", {}, tr(TEXT.summary)),
    h("p", { class: "muted small" }, tr(TEXT.intro)),
    mine,
    form,
    status,
  );
}
