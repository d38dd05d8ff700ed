// The graph, trace and memory views' words: they live with every other UI string in
// ui/i18n.ts under "view."; gt("laying") is t("view.laying"), typed by those keys.

import { t, type Key } from "../ui/i18n";

type WithoutPrefix<T> = T extends `view.${infer K}` ? K : never;
/** The keys of the views' words, without their "view." prefix. */
export type GraphKey = WithoutPrefix<Key>;

/** 12345 as "12,345", as toLocaleString("en") writes it without its first-call cost (setting
 * up ICU's number format took a long task of its own on a loaded machine). */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function gt(key: GraphKey, vars: Record<string, string | number> = {}): string {
  return t(`view.${key}` as Key, vars);
}
