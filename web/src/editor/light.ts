// CodeMirror's default (light) highlighting with its low-contrast colours raised to 4.5:1 or
// more on the editor's white and its active line (axe color-contrast, WCAG AA): the orange of
// escapes and regexps (#e40) was 3.84:1, the red of invalid text (#f00) 4.0:1, the green of type
// and module names (#085) 4.5:1 on white and less on the active line.

import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Prec } from "@codemirror/state";
import { tags } from "@lezer/highlight";

const raised = HighlightStyle.define([
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: "#b03000" }, // 6.4:1
  { tag: tags.invalid, color: "#c00000" }, // 6.5:1
  { tag: [tags.typeName, tags.namespace], color: "#006644" }, // 6.6:1
]);

export const accessibleLight = [Prec.high(syntaxHighlighting(raised))];
