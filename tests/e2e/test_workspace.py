"""The workspace under a learner's hands: the exercise view (wide pane, report in view, failing
test -> editor line, a submission's code restored with undo), a print flood (frame gaps and Stop
time, printed), the phone layout, folded tracebacks, and an example that says it was loaded."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import REPO
from .test_playground import console, run, set_code, wait_idle

EXERCISE = "matmul-backward"
EXERCISE_DIR = REPO / "exercises" / "05-matmul-backward"


def open_exercise(page: Page, exercise: str = EXERCISE) -> None:
    page.get_by_role("tab", name="Exercises").click()
    page.locator(f'.exercise-item[data-id="{exercise}"]').click()
    expect(page.locator(".exercise-heading")).to_be_visible()


def editor_line(page: Page) -> str | None:
    return page.locator(".editor-position").get_attribute("data-line")


def in_viewport(page: Page, selector: str) -> bool:
    """The element's box lies inside its scrolling ancestors and the window."""
    return page.evaluate(
        """(sel) => {
          const el = document.querySelector(sel);
          if (!el) return false;
          const r = el.getBoundingClientRect();
          for (let p = el.parentElement; p; p = p.parentElement) {
            const s = getComputedStyle(p);
            if (!/(auto|scroll)/.test(s.overflowY)) continue;
            const q = p.getBoundingClientRect();
            if (r.top < q.top - 1 || r.top > q.bottom - 20) return false;
          }
          return r.top >= 0 && r.top < innerHeight - 20;
        }""",
        selector,
    )


def test_exercise_gets_the_wide_pane_and_a_failing_test_links_to_its_line(app: Page, screenshots):
    app.set_viewport_size({"width": 1400, "height": 900})
    open_exercise(app)
    sidebar = app.locator(".sidebar").bounding_box()
    editor = app.locator(".editor-pane").bounding_box()
    output = app.locator(".output-pane").bounding_box()
    print(f"\n[exercise layout 1400x900] side {sidebar['width']:.0f} px, editor {editor['width']:.0f} px, "
          f"output {output['width']:.0f} px")
    assert sidebar["width"] >= 0.38 * 1400, sidebar  # not the ~280 px column
    # Read the statement to its end, then run the tests: the new report is brought into view.
    app.locator(".sidebar .tabpanels").evaluate("el => el.scrollTop = el.scrollHeight")
    app.get_by_role("button", name="Run tests", exact=True).click()
    report = app.get_by_test_id("report-local")
    expect(report.locator(".verdict")).not_to_have_attribute("data-verdict", "Accepted", timeout=60_000)
    expect(report.locator(".verdict")).to_have_attribute("data-verdict", re.compile(".+"))
    assert in_viewport(app, '[data-testid="report-local"]')
    # Each failing test names the solution's line it failed on; the editor marks the first one.
    first = report.locator(".test.error, .test.failed").first
    link = first.locator("button.line-link[data-line]").first
    line = link.get_attribute("data-line")
    expect(app.locator(f'.cm-error-line[data-error-line="{line}"]')).to_have_count(1)
    # Library frames (kael, the harness) are folded behind a toggle.
    expect(first.locator("details.library-frames").first).not_to_have_attribute("open", "")
    app.screenshot(path=screenshots / "exercise-failing-1400.png")
    link.click()
    expect(app.locator(".editor-position")).to_have_attribute("data-line", line)


def test_the_divider_resizes_the_side_pane_by_keyboard(app: Page):
    app.set_viewport_size({"width": 1400, "height": 900})
    open_exercise(app)
    divider = app.get_by_role("separator", name="Resize the side panel")
    before = app.locator(".sidebar").bounding_box()["width"]
    divider.focus()
    for _ in range(3):
        app.keyboard.press("ArrowLeft")
    expect(divider).to_have_attribute("aria-valuenow", re.compile(r"\d+"))
    after = app.locator(".sidebar").bounding_box()["width"]
    assert after < before - 40, (before, after)


def test_a_submission_in_the_history_restores_its_code_with_undo(app: Page):
    open_exercise(app)
    submitted = "# my first try\n" + (EXERCISE_DIR / "matmul_backward.py").read_text(encoding="utf-8")
    set_code(app, submitted)
    app.get_by_role("button", name="Submit", exact=True).click()
    expect(app.get_by_test_id("report-server").locator(".verdict")).to_have_attribute(
        "data-verdict", re.compile(".+"), timeout=120_000)
    entry = app.locator(".history-list button").first
    expect(entry).to_be_visible()
    set_code(app, "# a later draft\n")
    entry.click()
    expect(app.get_by_test_id("report-server").locator(".restored")).to_be_visible()
    expect(app.locator(".cm-content")).to_contain_text("# my first try")
    assert in_viewport(app, '[data-testid="report-server"]')
    app.locator(".cm-content").click()
    app.keyboard.press("ControlOrMeta+z")
    expect(app.locator(".cm-content")).to_contain_text("# a later draft")
    expect(app.locator(".cm-content")).not_to_contain_text("# my first try")


def test_a_syntax_error_report_says_it_once_and_marks_the_line(app: Page):
    open_exercise(app)
    set_code(app, "import kael\n\ndef broken(:\n    pass\n")
    app.get_by_role("button", name="Run tests", exact=True).click()
    report = app.get_by_test_id("report-local")
    expect(report.locator(".verdict")).to_have_attribute("data-verdict", "Syntax Error", timeout=60_000)
    expect(report.locator(".syntax-error")).to_have_count(1)
    expect(report).not_to_contain_text("0 of 0")
    expect(report.locator(".verdict-message")).to_have_count(0)
    expect(app.locator('.cm-error-line[data-error-line="3"]')).to_have_count(1)
    report.get_by_role("button", name="Go to line 3 in the editor").click()
    expect(app.locator(".editor-position")).to_have_attribute("data-line", "3")


def test_statements_do_not_end_with_a_shell_command(app: Page):
    open_exercise(app, "graph-walk")
    statement = app.locator(".statement")
    expect(statement.locator("p").first).to_be_visible()
    expect(statement).not_to_contain_text("judge.py")


def test_a_shape_error_folds_kaels_frames_and_marks_the_learners_line(app: Page):
    set_code(app, "import kael\n\nx = kael.ones(2, 3)\ny = x @ kael.ones(4, 5)\nprint(y)\n")
    run(app)
    block = console(app).locator(".traceback")
    expect(block).to_be_visible(timeout=60_000)
    expect(block.get_by_role("button", name="Go to line 4 in the editor")).to_be_visible()
    folded = block.locator("details.library-frames")
    if folded.count():  # the error may be raised in kael's own frames: folded, closed
        expect(folded.first).not_to_have_attribute("open", "")
        expect(folded.first.locator("summary")).to_contain_text("library frames")
    text = block.inner_text()
    assert re.search(r"Error: .*\S\s*$", text), text  # the clear last line is always shown
    expect(app.locator('.cm-error-line[data-error-line="4"]')).to_have_count(1)


def test_opening_an_example_says_so_and_undo_brings_the_code_back(app: Page):
    set_code(app, "print('mine')\n")
    example = app.locator(".example-item").first
    title = example.locator(".example-title").inner_text()
    example.click()
    expect(console(app)).to_contain_text(f"Opened the example “{title}”")
    expect(example).to_have_attribute("aria-current", "true")
    expect(app.locator(".cm-content")).not_to_contain_text("print('mine')")
    app.keyboard.press("ControlOrMeta+z")
    expect(app.locator(".cm-content")).to_contain_text("print('mine')")


# ------------------------------------------------------------------------------ print flood

FRAME_PROBE = """() => {
  window.__frames = [];
  const tick = (now) => {
    window.__frames.push(now);
    if (now - window.__probeStart > 3000) document.body.dataset.probed = "1";
    if (!window.__stopProbe) requestAnimationFrame(tick);
  };
  window.__stopProbe = false;
  requestAnimationFrame(tick);
  window.__probeStart = performance.now();
}"""

STOP_PROBE = """() => {
  const log = document.querySelector('[role=log]');
  window.__stoppedAt = null;
  const seen = () => {
    if (window.__stoppedAt !== null || !log.textContent.includes('Stopped.')) return;
    window.__stoppedAt = performance.now();
    document.body.dataset.stopped = "1";
  };
  new MutationObserver(seen).observe(log, { childList: true, subtree: true, characterData: true });
  window.__stopClickedAt = performance.now();
  document.querySelector('button.stop').click();
}"""


def frame_figures(page: Page) -> dict:
    return page.evaluate("""() => {
      window.__stopProbe = true;
      const f = window.__frames, gaps = f.slice(1).map((t, i) => t - f[i]).sort((a, b) => a - b);
      const span = (f[f.length - 1] - f[0]) / 1000;
      return { frames: f.length, fps: (f.length - 1) / span, median: gaps[gaps.length >> 1],
               p95: gaps[Math.floor(gaps.length * 0.95)], max: gaps[gaps.length - 1] };
    }""")


def test_a_print_flood_keeps_the_page_drawing_and_stop_acts_fast(app: Page):
    set_code(app, "i = 0\nwhile True:\n    print(i)\n    i += 1\n")
    run(app)
    expect(console(app)).to_contain_text("1000", timeout=60_000)
    app.evaluate(FRAME_PROBE)
    # The probe marks the page after 3 s of its own clock (wait_for_function would need eval: CSP).
    expect(app.locator("body")).to_have_attribute("data-probed", "1", timeout=60_000)
    figures = frame_figures(app)
    app.evaluate(STOP_PROBE)
    expect(app.locator("body")).to_have_attribute("data-stopped", "1", timeout=30_000)
    stop_ms = app.evaluate("window.__stoppedAt - window.__stopClickedAt")
    print(f"\n[print flood] {figures['frames']} frames in 3 s: {figures['fps']:.1f} fps, frame gap median "
          f"{figures['median']:.0f} ms, p95 {figures['p95']:.0f} ms, max {figures['max']:.0f} ms; "
          f"Stop -> 'Stopped.' in {stop_ms:.0f} ms")
    wait_idle(app, 30_000)
    expect(console(app)).not_to_contain_text("restarted")  # interrupted in place
    # Liveness only (a loaded CI machine can slow any frame rate; the figures above are the
    # measure): the page kept drawing during the flood and Stop answered.
    assert figures["frames"] >= 3, figures
    assert stop_ms < 10_000, stop_ms
    set_code(app, "print('after the flood')")
    run(app)
    expect(console(app)).to_contain_text("after the flood")


def test_stopping_prints_one_message(app: Page):
    set_code(app, "while True:\n    pass\n")
    run(app)
    stop = app.get_by_role("button", name="Stop", exact=True)
    expect(stop).to_be_enabled()
    stop.click()
    expect(console(app)).to_contain_text("Stopped.")
    wait_idle(app, 30_000)
    notes = console(app).locator(".note, .traceback")
    expect(notes).to_have_count(1)


# ------------------------------------------------------------------------------ phones


def test_phone_layout_is_one_column_without_horizontal_scroll(page: Page, watch, base_url, screenshots):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base_url + "/")
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=60_000)
    page.get_by_role("button", name=re.compile("The diamond trace")).click()
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_test_id("trace-position")).to_have_text("Step 0 of 5", timeout=60_000)
    widths = page.evaluate("({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })")
    assert widths["scroll"] <= widths["client"], widths
    editor = page.locator(".editor-pane").bounding_box()
    output = page.locator(".output-pane").bounding_box()
    assert editor["width"] >= 380 and output["width"] >= 380, (editor, output)
    assert output["y"] >= editor["y"] + editor["height"] - 1, (editor, output)  # stacked
    plot_tab = page.get_by_role("tab", name="Plot").bounding_box()
    assert plot_tab["x"] + plot_tab["width"] <= 390, plot_tab
    tools = page.locator(".trace-view .graph-tools").first
    if tools.is_visible():
        box = tools.bounding_box()
        assert box["y"] >= output["y"], (box, output)  # the zoom buttons stay in the output pane
    page.screenshot(path=screenshots / "phone-390.png")
    page.screenshot(path=screenshots / "phone-390-full.png", full_page=True)
    widths = page.evaluate("({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })")
    assert widths["scroll"] <= widths["client"], widths


# ------------------------------------------------------------------------------ share links


def open_link(context, watch, link: str) -> Page:
    other = context.new_page()
    watch.attach_page(other)
    other.goto(link)
    expect(other.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    return other


def share_link(page: Page) -> str:
    page.get_by_role("button", name="Share", exact=True).click()
    return page.get_by_role("textbox", name="Share link").input_value()


def test_a_share_link_carries_the_tab_and_the_example(app: Page, context, watch):
    app.locator('.example-item[data-example="diamond"]').click()
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Graph").click()
    link = share_link(app)
    assert "tab=graph" in link and "example=diamond" in link, link
    other = open_link(context, watch, link)
    expect(other.locator('.example-item[data-example="diamond"]')).to_have_attribute("aria-current", "true")
    other.get_by_role("button", name="Run", exact=True).click()
    # Without the link's tab the diamond's run would end on the Trace tab (it shows a trace).
    expect(other.get_by_role("tab", name="Graph")).to_have_attribute("aria-selected", "true", timeout=60_000)
    other.close()


def test_a_share_link_opens_the_exercise_with_the_shared_code(app: Page, context, watch):
    open_exercise(app)
    set_code(app, "# shared attempt\nimport kael\n")
    link = share_link(app)
    assert f"exercise={EXERCISE}" in link, link
    other = open_link(context, watch, link)
    expect(other.locator(".exercise-heading")).to_be_visible(timeout=60_000)
    expect(other.locator(".cm-content")).to_contain_text("# shared attempt")
    other.close()


TWO_PASSES = """import kael
import kael.viz

x = kael.tensor([1.0, 2.0], requires_grad=True)
with kael.viz.trace() as tr:
    (x * x).sum().backward()
    (x * 3).sum().backward()
kael.viz.show(tr)
"""


def trace_step(page: Page, step: int, total: int) -> None:
    """The Trace tab is open on this step: the stepper says so and the table marks its row."""
    expect(page.get_by_role("tab", name="Trace")).to_have_attribute("aria-selected", "true", timeout=60_000)
    expect(page.get_by_test_id("trace-position")).to_have_text(f"Step {step} of {total}")
    expect(page.locator(".trace-table tr[aria-current=step]")).to_have_attribute("data-index", str(step))


def test_a_share_link_carries_the_trace_step_and_reruns_to_it(app: Page, context, watch):
    # The diamond at a middle step of its one pass.
    app.locator('.example-item[data-example="diamond"]').click()
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Trace").click()
    for _ in range(3):
        app.get_by_role("button", name="Next step").click()
    trace_step(app, 3, 5)
    link = share_link(app)
    assert "tab=trace" in link and "step=3" in link and "pass=" not in link, link
    other = open_link(context, watch, link)
    trace_step(other, 3, 5)  # run by the page itself: nobody pressed Run
    expect(other.locator('.example-item[data-example="diamond"]')).to_have_attribute("aria-current", "true")
    other.close()

    # Two backward passes: the link names the pass too (not the last one, which opens first).
    set_code(app, TWO_PASSES)
    run(app)
    wait_idle(app)
    app.locator(".pass-picker").select_option("0")
    app.get_by_role("button", name="Next step").click()
    total = int(app.get_by_test_id("trace-position").get_attribute("data-total"))
    trace_step(app, 1, total)
    link = share_link(app)
    assert "step=1" in link and "pass=0" in link, link
    other = open_link(context, watch, link)
    trace_step(other, 1, total)
    expect(other.locator(".pass-picker")).to_have_value("0")
    other.close()


def test_the_plot_names_its_axes(app: Page):
    set_code(app, "import playground\nfor i in range(3):\n    playground.plot('loss', i, 1 / (i + 1))\n")
    run(app)
    expect(app.get_by_role("tab", name="Plot")).to_have_attribute("aria-selected", "true", timeout=60_000)
    expect(app.locator('.plot-svg [data-axis="x"]')).to_have_text("step")
    expect(app.locator('.plot-svg [data-axis="y"]')).to_have_text("loss")


def test_a_share_link_keeps_the_draft_it_replaces(app: Page, context, watch):
    set_code(app, "print('the shared code')\n")
    link = share_link(app)
    set_code(app, "print('my own draft')\n")  # kept in this browser's storage as the playground's code
    other = open_link(context, watch, link)
    editor = other.locator(".cm-content")
    expect(editor).to_contain_text("the shared code")
    kept = other.locator(".kept-bar")
    expect(kept).to_contain_text("Your own code from before the shared link is kept.")
    other.get_by_role("button", name="Back to my code").click()
    expect(editor).to_contain_text("my own draft")
    expect(editor).not_to_contain_text("the shared code")
    # Nothing is lost either way: the link's code is kept in its turn, across a reload.
    other.reload()
    expect(other.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    expect(editor).to_contain_text("my own draft")
    other.get_by_role("button", name="Back to the shared code").click()
    expect(editor).to_contain_text("the shared code")
    expect(other.get_by_role("button", name="Back to my code")).to_be_visible()
    other.close()


def test_a_shared_exercise_link_keeps_the_exercise_draft(app: Page, context, watch):
    open_exercise(app)
    set_code(app, "# the shared attempt\n")
    link = share_link(app)
    set_code(app, "# my own attempt\n")
    other = open_link(context, watch, link)
    expect(other.locator(".exercise-heading")).to_be_visible(timeout=60_000)
    expect(other.locator(".cm-content")).to_contain_text("# the shared attempt")
    other.get_by_role("button", name="Back to my code").click()
    expect(other.locator(".cm-content")).to_contain_text("# my own attempt")
    other.close()


# ------------------------------------------------------------------------------ navigation


def test_opening_an_exercise_clears_the_last_drawings_and_the_share_panel(app: Page):
    app.locator('.example-item[data-example="diamond"]').click()
    run(app)
    expect(app.get_by_test_id("trace-position")).to_be_visible(timeout=60_000)
    wait_idle(app)
    expect(app.locator(".trace-view.has-trace")).to_have_count(1)
    expect(app.locator(".graph-view.has-graph")).to_have_count(1)
    share_link(app)
    expect(app.locator(".share-panel")).to_be_visible()
    open_exercise(app)
    expect(app.locator(".share-panel")).to_be_hidden()
    expect(app.locator(".trace-view.has-trace")).to_have_count(0)
    expect(app.locator(".graph-view.has-graph")).to_have_count(0)
    expect(app.get_by_role("tab", name="Console")).to_have_attribute("aria-selected", "true")
    # Back in the playground the exercise's drawings go too; Share again, then another tab.
    share_link(app)
    app.get_by_role("button", name="← kael playground").click()
    expect(app.locator(".share-panel")).to_be_hidden()
    share_link(app)
    app.get_by_role("tab", name="Learn").click()
    expect(app.locator(".share-panel")).to_be_hidden()


def test_the_context_bar_names_the_loaded_example(app: Page):
    label = app.locator(".context-label")
    expect(label).to_have_text("kael playground")
    app.locator('.example-item[data-example="two-moons"]').click()
    title = app.locator('.example-item[data-example="two-moons"] .example-title').inner_text()
    expect(label).to_have_text(f"Example · {title}")
    app.locator('.example-item[data-example="diamond"]').click()
    expect(label).to_have_text("Example · The diamond trace (ADR 0005)")
    app.get_by_role("button", name="切换到中文").click()
    expect(label).to_have_text(re.compile(r"^示例 · "))


def test_a_statement_says_it_is_loading_until_it_is_shown(app: Page):
    held = []
    # The statement's renderer (markdown, KaTeX) is held back: the pane says what is coming.
    app.route(re.compile(r"/assets/markdown-[^/]*\.js$"), lambda route: held.append(route))
    open_exercise(app)
    statement = app.locator(".statement")
    expect(statement.locator(".statement-loading")).to_have_text("Loading the statement…")
    expect(statement).to_have_attribute("aria-busy", "true")
    assert held, "the renderer was not requested"
    for route in held:
        route.continue_()
    expect(statement.locator("p").first).to_be_visible()
    expect(statement.locator(".statement-loading")).to_have_count(0)
    expect(statement).not_to_have_attribute("aria-busy", "true")


def test_on_a_phone_an_exercise_opens_at_the_top_of_its_statement(page: Page, watch, base_url, screenshots):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base_url + "/")
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    page.get_by_role("tab", name="Exercises").click()
    item = page.locator(f'.exercise-item[data-id="{EXERCISE}"]')
    item.scroll_into_view_if_needed()
    item.click()
    heading = page.locator(".exercise-heading")
    expect(heading).to_be_visible()
    expect(page.locator(".statement p").first).to_be_visible()
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    top = heading.bounding_box()["y"]
    back = page.locator(".exercises .back").bounding_box()["y"]
    page.screenshot(path=screenshots / "phone-exercise-opened.png")
    assert 0 <= back and top < 844 / 3, (back, top)  # the statement's start, not a cut sentence
    assert page.locator(".sidebar .tabpanels").evaluate("el => el.scrollTop") == 0


# ------------------------------------------------------------------------------ keyboard


def test_the_skip_link_takes_the_keyboard_to_the_editor(app: Page):
    app.evaluate("document.activeElement && document.activeElement.blur()")
    app.keyboard.press("Tab")
    skip = app.get_by_role("link", name="Skip to the code editor")
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box and box["y"] >= 0 and box["height"] > 10, box  # shown while focused
    app.keyboard.press("Enter")
    expect(app.locator(".cm-content")).to_be_focused()
    app.keyboard.press("ControlOrMeta+End")
    app.keyboard.type("\nprint('typed')")
    expect(app.locator(".cm-content")).to_contain_text("print('typed')")
    assert "#" not in app.url, app.url  # a hash would read as a share link


def test_the_editor_is_a_few_tabs_away_not_behind_every_example(app: Page):
    app.evaluate("document.activeElement && document.activeElement.blur()")
    seen = []
    for _ in range(20):
        app.keyboard.press("Tab")
        seen.append(app.evaluate(
            "(() => { const e = document.activeElement; return e.className || e.tagName; })()"))
        if app.evaluate("!!document.activeElement.closest('.cm-content')"):
            break
    else:
        raise AssertionError(f"the editor was not reached in 20 Tabs: {seen}")
    assert len(seen) <= 12, seen
    assert sum("example-item" in s for s in seen) == 1, seen  # the list is one Tab stop
    # Inside the list the arrow keys move from card to card.
    first = app.locator(".example-item").first
    first.focus()
    app.keyboard.press("ArrowDown")
    expect(app.locator(".example-item").nth(1)).to_be_focused()
    app.keyboard.press("End")
    expect(app.locator(".example-item").last).to_be_focused()
