// Statement Markdown to safe HTML: math ($…$, $$…$$, \(…\), \[…\]) typeset by KaTeX, the rest by
// marked, everything sanitized by DOMPurify. Math inside code spans and fences stays as written.

import DOMPurify from "dompurify";
import katex from "katex";
import "katex/dist/katex.min.css";
import { marked } from "marked";

const MATH = /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|(?<![\\$\w])\$(?!\s)((?:\\\$|[^$\n])+?)(?<!\s)\$(?!\w)/g;

function typeset(tex: string, display: boolean): string {
  return katex.renderToString(tex.trim(), { displayMode: display, throwOnError: false, output: "htmlAndMathml" });
}

/** Replace math outside code with placeholder tokens; returns the text and the rendered math. */
function protectMath(source: string): { text: string; math: string[] } {
  const math: string[] = [];
  const replace = (chunk: string) =>
    chunk.replace(MATH, (_m, dbl?: string, brk?: string, par?: string, single?: string) => {
      const display = dbl !== undefined || brk !== undefined;
      math.push(typeset((dbl ?? brk ?? par ?? single ?? "").replace(/\\\$/g, "$"), display));
      return `KAELMATH${math.length - 1}X`;
    });
  // Split into fenced code, inline code and text; only text is scanned for math.
  const parts = source.split(/(^(?:```|~~~)[^\n]*\n[\s\S]*?^(?:```|~~~)[ \t]*$|`+[^`\n]*`+)/m);
  const text = parts.map((part, i) => (i % 2 === 1 ? part : replace(part))).join("");
  return { text, math };
}

/** `headingOffset` demotes headings (h1 -> h3 for 2), so a statement fits the page's outline. */
export function renderMarkdown(source: string, headingOffset = 2): string {
  const { text, math } = protectMath(source);
  const html = (marked.parse(text, { async: false, gfm: true }) as string).replace(
    /<(\/?)h([1-6])\b/g,
    (_m, slash: string, level: string) => `<${slash}h${Math.min(6, Number(level) + headingOffset)}`,
  );
  const withMath = html.replace(/KAELMATH(\d+)X/g, (_m, i: string) => math[Number(i)] ?? "");
  // KaTeX's MathML keeps its TeX source in <semantics><annotation>, plain text that DOMPurify
  // would otherwise unwrap into the formula (read twice by screen readers). annotation-xml,
  // which can carry HTML, stays forbidden.
  return DOMPurify.sanitize(withMath, {
    USE_PROFILES: { html: true, mathMl: true, svg: true },
    ADD_TAGS: ["semantics", "annotation"],
    ADD_ATTR: ["encoding"],
  });
}
