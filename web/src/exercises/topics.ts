// An exercise's topic tags in the page's language. The exercises' configs name their topics in
// English; topics.zh.json gives each its Chinese (an API name such as grad_fn or no_grad stays
// itself). tests/e2e/test_i18n.py checks that every topic of every exercise has an entry.

import { currentLang } from "../ui/i18n";
import zh from "./topics.zh.json";

const ZH: Record<string, string> = zh;

export function topicLabel(topic: string): string {
  return currentLang() === "zh" ? (ZH[topic] ?? topic) : topic;
}

/** The topics as the page shows them: comma-separated in English, 、-separated in Chinese. */
export function topicList(topics: readonly string[]): string {
  return topics.map(topicLabel).join(currentLang() === "zh" ? "、" : ", ");
}
