"""The workspace's layout at a phone, a tablet upright, a tablet on its side, a laptop and a desktop,
in the playground and in an exercise, measured (not read off a screenshot): nothing in the page
overflows sideways or is cut by a box that does not scroll, every tab's label is whole, the
editor and the trace and graph drawings keep a size a learner can use; and the header keeps
Python's load stages on one line from 1180 px up. Screenshots of each go to screenshots/layout-*."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_snapshot import MANIFEST

SIZES = [(390, 844), (768, 1024), (1180, 820), (1440, 900), (1920, 1080)]

# Every element under the header and the workspace that sticks out of its nearest box that clips
# (overflow hidden or clip: nothing can scroll it into view) or out of the window sideways. Boxes
# that scroll (the editor, a wide table's wrapper) and the drawings' svg (panned) are fine.
CLIPPED = """() => {
  const out = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const width = document.documentElement.clientWidth;
  for (const el of document.querySelectorAll('.topbar *, .workspace *')) {
    if (el.closest('svg') || el.closest('.cm-editor') || el.closest('.katex-mathml')) continue;  // (MathML: read, not shown)
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.position === 'fixed') continue;
    if (r.left < -1 || r.right > width + 1) { out.push(`${name(el)} outside the window: ${Math.round(r.left)}..${Math.round(r.right)} of ${width}`); continue; }
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (/(auto|scroll)/.test(s.overflowX)) break;  // it scrolls: reachable
      if (!/(hidden|clip)/.test(s.overflowX)) continue;
      if (s.textOverflow === 'ellipsis' || style.textOverflow === 'ellipsis') break;  // cut on purpose, with an ellipsis
      const q = p.getBoundingClientRect();
      if (r.left < q.left - 1 || r.right > q.right + 1) out.push(`${name(el)} cut by ${name(p)}: ${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(q.left)}..${Math.round(q.right)}`);
      break;
    }
  }
  return out;
}"""

# Every tab whose tab list is shown: its label fits in the tab, the tab in its list and the window.
TABS_CUT = """() => {
  const out = [];
  const width = document.documentElement.clientWidth;
  for (const tab of document.querySelectorAll('[role=tab]')) {
    const list = tab.closest('[role=tablist]');
    const r = tab.getBoundingClientRect(), q = list.getBoundingClientRect();
    if (q.width === 0) continue;
    const label = tab.textContent.trim();
    if (r.width === 0) { out.push(`${label}: not shown`); continue; }
    if (tab.scrollWidth > tab.clientWidth + 1) out.push(`${label}: label wider than its tab`);
    if (r.left < q.left - 1 || r.right > q.right + 1 || r.bottom > q.bottom + 1) out.push(`${label}: outside its tab list`);
    if (r.left < 0 || r.right > width + 1) out.push(`${label}: outside the window`);
  }
  return out;
}"""


def box(page: Page, selector: str) -> dict:
    b = page.locator(selector).first.bounding_box()
    assert b, f"{selector} is not on screen"
    return b


def set_viewport(page: Page, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    # The layout settles in the next frame (the splitter's clamp, the graph's refit).
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def check_layout(page: Page, where: str, width: int) -> list[str]:
    problems = [f"[{where}] {p}" for p in page.evaluate(CLIPPED)]
    problems += [f"[{where}] tab {p}" for p in page.evaluate(TABS_CUT)]
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll > width:
        problems.append(f"[{where}] the page scrolls sideways: {scroll} px wide in {width}")
    editor = box(page, ".editor-pane .cm-editor")
    if editor["width"] < min(360, width - 2) or editor["height"] < 250:
        problems.append(f"[{where}] editor {editor['width']:.0f}x{editor['height']:.0f}")
    return problems


def check_drawing(page: Page, where: str, width: int, tab: str, canvas: str) -> list[str]:
    page.locator(f'[data-tab="{tab}"]').click()
    page.locator(canvas).first.scroll_into_view_if_needed()
    drawing = box(page, canvas)
    pane = box(page, ".output-pane")
    least = min(360.0, pane["width"] - 2)
    print(f"[{where}] {tab} drawing {drawing['width']:.0f}x{drawing['height']:.0f} in an output pane "
          f"{pane['width']:.0f}x{pane['height']:.0f}")
    if drawing["width"] < least or drawing["height"] < 200:
        return [f"[{where}] the {tab} drawing is {drawing['width']:.0f}x{drawing['height']:.0f}"]
    return []


def survey(page: Page, mode: str, screenshots) -> list[str]:
    problems = []
    for width, height in SIZES:
        set_viewport(page, width, height)
        where = f"{mode} {width}x{height}"
        problems += check_layout(page, where, width)
        problems += check_drawing(page, where, width, "graph", ".graph-view .graph-canvas")
        problems += check_drawing(page, where, width, "trace", ".trace-body .graph-canvas")
        problems += [f"{p} (trace tab)" for p in check_layout(page, where, width)]
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=screenshots / f"layout-{mode}-{width}.png")
        page.locator('[data-tab="memory"]').click()
        problems += [f"{p} (memory tab)" for p in check_layout(page, where, width)]
        page.locator('[data-tab="trace"]').click()
    return problems


def run_diamond(page: Page) -> None:
    page.get_by_role("button", name=re.compile("The diamond trace")).click()
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_test_id("trace-position")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=60_000)


def test_the_playground_fits_every_size(app: Page, screenshots):
    run_diamond(app)
    problems = survey(app, "playground", screenshots)
    assert not problems, "\n".join(problems)


def test_an_exercise_fits_every_size(app: Page, screenshots):
    app.get_by_role("tab", name="Exercises").click()
    app.locator('.exercise-item[data-id="matmul-backward"]').click()
    expect(app.locator(".statement p").first).to_be_visible()
    # The exercise's own run draws the diamond beside its statement.
    app.locator(".cm-content").click()
    app.keyboard.press("ControlOrMeta+a")
    app.keyboard.press("Delete")
    app.keyboard.insert_text(
        "import kael\nimport kael.viz\nx = kael.tensor([1.0, 2.0], requires_grad=True)\n"
        "loss = (x * 2 + x * 3).sum()\nwith kael.viz.trace() as tr:\n    loss.backward()\nkael.viz.show(tr)\n")
    app.get_by_role("button", name="Run", exact=True).click()
    expect(app.get_by_test_id("trace-position")).to_be_visible(timeout=60_000)
    expect(app.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=60_000)
    problems = survey(app, "exercise", screenshots)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("width", [1180, 1440])
def test_the_header_keeps_the_load_stages_on_one_line(context, page: Page, watch, base_url, width, screenshots):
    held = []
    # A normal start (the snapshot's manifest answers 404), with kael's compiled modules held back
    # (the last file it waits for; a snapshot start needs none): the page stays in its longest
    # loading state, two stages done and the third at work, while the header is measured.
    watch.allow(r"Failed to load resource: the server responded with a status of 404")
    context.route(re.compile(MANIFEST), lambda route: route.fulfill(status=404, body="not found"))
    context.route(re.compile(r"\.pyc\.zip$"), lambda route: held.append(route))
    page.set_viewport_size({"width": width, "height": 820})
    page.goto(base_url + "/")
    expect(page.locator(".stage.done")).to_have_count(2, timeout=120_000)
    expect(page.locator(".stage.active")).to_have_count(1)
    # One evaluation: the status redraws its chips every 100 ms while Python loads.
    header, tops = page.evaluate("""() => [document.querySelector('.topbar').getBoundingClientRect().height,
      [...document.querySelectorAll('.stage')].map(c => Math.round(c.getBoundingClientRect().top))]""")
    clipped = page.evaluate(CLIPPED)
    page.screenshot(path=screenshots / f"layout-loading-{width}.png")
    for route in held:
        route.continue_()
    context.unroute(re.compile(r"\.pyc\.zip$"))
    print(f"\n[loading {width}] header {header:.0f} px high, chips' tops {tops}")
    assert header < 60, header
    assert len(tops) == 3 and len(set(tops)) == 1, tops  # one line
    assert not clipped, clipped
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
