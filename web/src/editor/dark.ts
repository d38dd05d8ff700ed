// One Dark with its low-contrast colours raised to 4.5:1 or more (axe color-contrast, WCAG AA):
// the gutter's line numbers, comments and the coral of names were 3.9-4.4:1 on #282c34.

import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { oneDarkHighlightStyle, oneDarkTheme } from "@codemirror/theme-one-dark";
import { Prec } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";

const CORAL = "#ef8891"; // One Dark's #e06c75, lightened: 5.7:1
const STONE = "#9da5b4"; // One Dark's #7d8799: 5.6:1

const raised = HighlightStyle.define([
  { tag: [tags.name, tags.deleted, tags.character, tags.propertyName, tags.macroName], color: CORAL },
  { tag: tags.heading, fontWeight: "bold", color: CORAL },
  { tag: [tags.meta, tags.comment], color: STONE },
  { tag: tags.link, color: STONE, textDecoration: "underline" },
]);

export const accessibleDark = [
  oneDarkTheme,
  Prec.high(syntaxHighlighting(raised)), // wins over One Dark's style for these tags only
  syntaxHighlighting(oneDarkHighlightStyle),
  Prec.highest(EditorView.theme({ ".cm-gutters": { color: STONE } }, { dark: true })),
];
