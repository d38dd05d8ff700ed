import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

const dom = (html: string) => {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
};

describe("statement Markdown", () => {
  it("drops scripts, event handlers and javascript: links", () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n\n<img src="x.png" onerror="alert(2)">\n\n[link](javascript:alert(3)) <a href="#" onclick="alert(4)">a</a>',
    );
    const root = dom(html);
    expect(root.querySelector("script")).toBeNull();
    expect(html).not.toMatch(/onerror|onclick|javascript:/);
    expect(root.querySelector("img")?.getAttribute("src")).toBe("x.png");
  });

  it("keeps MathML's TeX annotation as text but never annotation-xml", () => {
    const html = renderMarkdown("$x^2$ and <math><annotation-xml><b>html</b></annotation-xml></math>");
    const root = dom(html);
    expect(root.querySelector(".katex")).not.toBeNull();
    expect(root.querySelector("annotation")?.textContent).toBe("x^2");
    expect(root.querySelector("annotation-xml")).toBeNull();
  });

  it("typesets math outside code only", () => {
    const root = dom(renderMarkdown("Cost $O(n)$, code `$HOME` and\n\n```\necho $PATH$\n```\n\n$$\\sum_i x_i$$"));
    expect(root.querySelectorAll(".katex")).toHaveLength(2);
    expect(root.querySelector(".katex-display")).not.toBeNull();
    expect(root.querySelector("code")?.textContent).toBe("$HOME");
    expect(root.querySelector("pre")?.textContent).toContain("echo $PATH$");
  });

  it("demotes headings under the page's own", () => {
    const root = dom(renderMarkdown("# Title\n\n### Small", 2));
    expect(root.querySelector("h3")?.textContent).toBe("Title");
    expect(root.querySelector("h5")?.textContent).toBe("Small");
    expect(root.querySelector("h1")).toBeNull();
  });

  it("shows a malformed formula as an error, not an exception", () => {
    expect(() => renderMarkdown("$\\frac{1}{$")).not.toThrow();
  });
});
