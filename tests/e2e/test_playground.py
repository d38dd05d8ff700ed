"""The playground in Chromium against the real server: run code, the diamond's graph and trace,
Stop, traceback links, share links, and an exercise from starter to Accepted."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import REPO

EXERCISE = "graph-walk"
EXERCISE_DIR = REPO / "exercises" / "01-graph-walk"


def set_code(page: Page, code: str) -> None:
    """Replace the editor's text (inserted as one edit: no auto-indent, no auto-closed brackets)."""
    editor = page.get_by_role("textbox", name="Python code")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def run(page: Page) -> None:
    page.get_by_role("button", name="Run", exact=True).click()


def console(page: Page):
    return page.get_by_role("log")


def wait_idle(page: Page, timeout: float = 60_000) -> None:
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=timeout)


def test_page_becomes_ready_and_prints_42(app: Page, screenshots):
    expect(app.get_by_role("status")).to_contain_text("Ready")
    set_code(app, "print(6*7)")
    run(app)
    expect(console(app)).to_contain_text("42")
    expect(console(app)).to_contain_text("Finished in")
    app.screenshot(path=screenshots / "console.png")


def test_ctrl_enter_runs_and_last_expression_is_shown(app: Page):
    set_code(app, "x = 20\nx + 22")
    app.keyboard.press("Control+Enter")
    expect(console(app)).to_contain_text("42")


def test_diamond_example_draws_graph_and_steps_through_five_steps(app: Page, screenshots):
    app.get_by_role("button", name=re.compile("The diamond trace")).click()
    run(app)
    wait_idle(app)

    app.get_by_role("tab", name="Graph").click()
    graph = app.get_by_role("group", name="Autograd graph").first
    for name in ["SumBackward", "AddBackward", "MulBackward(a)", "MulBackward(b)", "AccumulateGrad"]:
        expect(graph.get_by_role("button", name=re.compile(rf"^{re.escape(name)}(,|$)"))).to_have_count(1)
    expect(app.get_by_test_id("graph-totals")).to_contain_text("5 nodes")
    expect(graph.locator(".item.const")).to_have_count(2)  # the constants 2 and 3: null edges
    expect(graph.locator(".item.tensor")).to_have_count(2)  # loss (root) and x (leaf)
    graph.get_by_role("button", name="AccumulateGrad", exact=True).click()
    expect(app.locator(".graph-details")).to_contain_text("AccumulateGrad node")
    app.screenshot(path=screenshots / "graph.png")

    app.get_by_role("tab", name="Trace").click()
    position = app.get_by_test_id("trace-position")
    expect(position).to_have_text("Step 0 of 5")
    rows = app.locator(".trace-table tbody tr")
    expect(rows).to_have_count(6)
    expect(rows.nth(3)).to_contain_text("MulBackward(b)")  # the ready list is a stack: b first
    expect(rows.nth(4)).to_contain_text("MulBackward(a)")
    next_step = app.get_by_role("button", name="Next step")
    expected_nodes = ["SumBackward", "AddBackward", "MulBackward(b)", "MulBackward(a)", "AccumulateGrad"]
    for step, node in enumerate(expected_nodes, start=1):
        next_step.click()
        expect(position).to_have_text(f"Step {step} of 5")
        expect(app.locator(".trace-view .item.current")).to_have_attribute("data-name", node.split("(")[0])
        if step == 3:
            expect(app.get_by_test_id("step-result")).to_contain_text("[3, 3] buffered for AccumulateGrad, count 2 → 1")
            app.screenshot(path=screenshots / "trace-step3.png")
    expect(next_step).to_be_disabled()
    expect(app.get_by_test_id("step-result")).to_have_text("x.grad = [5, 5]")
    app.screenshot(path=screenshots / "trace.png")
    app.get_by_role("button", name="First step").click()
    expect(position).to_have_text("Step 0 of 5")

    # Enter on Last/First disables that button: focus moves to a neighbour, so the arrow keys
    # keep stepping (it used to drop to the page body).
    last_step = app.get_by_role("button", name="Last step")
    last_step.focus()
    app.keyboard.press("Enter")
    expect(position).to_have_text("Step 5 of 5")
    expect(app.get_by_role("button", name="Previous step")).to_be_focused()
    app.keyboard.press("ArrowLeft")
    expect(position).to_have_text("Step 4 of 5")
    app.get_by_role("button", name="First step").focus()
    app.keyboard.press("Enter")
    expect(position).to_have_text("Step 0 of 5")
    expect(next_step).to_be_focused()
    app.keyboard.press("ArrowRight")
    expect(position).to_have_text("Step 1 of 5")
    app.keyboard.press("Home")
    expect(position).to_have_text("Step 0 of 5")

    # By keyboard: Enter on a focused stepper button, arrow keys in the trace view, Enter on a node.
    next_step.focus()
    app.keyboard.press("Enter")
    expect(position).to_have_text("Step 1 of 5")
    app.keyboard.press("ArrowRight")
    expect(position).to_have_text("Step 2 of 5")
    app.keyboard.press("End")
    expect(position).to_have_text("Step 5 of 5")
    node = app.locator(".trace-view").get_by_role("button", name=re.compile(r"^AddBackward(,|$)"))  # the name goes on with the output shape
    node.focus()
    app.keyboard.press("Enter")
    expect(app.locator(".trace-state")).to_contain_text("function node")


def test_a_program_that_only_shows_a_trace_also_draws_its_graph(app: Page):
    app.get_by_role("button", name=re.compile("Broadcasting a bias")).click()
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Graph").click()
    graph = app.get_by_role("group", name="Autograd graph").first
    for name in ["SumBackward", "AddBackward", "MatmulBackward", "AccumulateGrad(b)", "AccumulateGrad(w)"]:
        expect(graph.get_by_role("button", name=re.compile(rf"^{re.escape(name)}(,|$)"))).to_have_count(1)


def test_stop_interrupts_an_endless_loop_and_the_next_run_works(app: Page):
    set_code(app, "print('looping')\nwhile True:\n    pass\n")
    run(app)
    expect(console(app)).to_contain_text("looping")
    stop = app.get_by_role("button", name="Stop", exact=True)
    expect(stop).to_be_enabled()
    stop.click()
    expect(console(app)).to_contain_text("KeyboardInterrupt")
    expect(console(app)).to_contain_text("Stopped.")
    expect(console(app)).not_to_contain_text("restarted")  # interrupted in place, not replaced
    wait_idle(app, 10_000)
    set_code(app, "print('after stop', 1 + 1)")
    run(app)
    expect(console(app)).to_contain_text("after stop 2")
    expect(console(app)).not_to_contain_text("KeyboardInterrupt")


def test_traceback_line_link_moves_the_editor_cursor(app: Page):
    set_code(app, "import kael\nx = kael.ones(2, 3)\ny = x @ kael.ones(4)\nprint(y)\n")
    run(app)
    expect(console(app)).to_contain_text("Error")
    expect(app.locator(".editor-position")).to_have_attribute("data-line", "5")  # cursor at the end
    app.get_by_role("button", name="Go to line 3 in the editor").click()
    expect(app.locator(".editor-position")).to_have_attribute("data-line", "3")
    expect(app.locator(".editor-position")).to_have_text("Ln 3, Col 1")


def test_share_link_round_trips_the_code(app: Page, context, watch, screenshots):
    code = "# shared 共享\nprint('hello from a link', [i * i for i in range(4)])\n"
    set_code(app, code)
    app.get_by_role("button", name="Share", exact=True).click()
    link = app.get_by_role("textbox", name="Share link").input_value()
    assert "#code=" in link and "print" not in link  # compressed, in the fragment

    other = context.new_page()
    watch.attach_page(other)
    other.goto(link)
    expect(other.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=60_000)
    expect(other.locator(".cm-content")).to_contain_text("print('hello from a link', [i * i for i in range(4)])")
    expect(other.locator(".cm-content")).to_contain_text("# shared 共享")
    assert "#code=" not in other.url  # the fragment is dropped, so a reload keeps later edits
    other.get_by_role("button", name="Run", exact=True).click()
    expect(other.get_by_role("log")).to_contain_text("hello from a link [0, 1, 4, 9]")
    other.reload()
    expect(other.locator(".cm-content")).to_contain_text("hello from a link")  # kept in the browser
    other.close()


def test_exercise_fails_with_starter_passes_with_reference_and_is_accepted_by_the_judge(app: Page, screenshots):
    reference = (EXERCISE_DIR / ".meta" / "reference.py").read_text(encoding="utf-8")
    app.get_by_role("tab", name="Exercises").click()
    app.locator(f'.exercise-item[data-id="{EXERCISE}"]').click()
    expect(app.get_by_role("heading", level=2, name=re.compile("Walk the graph"))).to_be_visible()
    expect(app.locator(".cm-content")).to_contain_text("NotImplementedError")  # the starter

    app.get_by_role("button", name="Run tests", exact=True).click()
    local = app.get_by_test_id("report-local")
    expect(local.locator(".verdict")).to_be_visible(timeout=60_000)
    expect(local.locator(".verdict")).not_to_have_attribute("data-verdict", "Accepted")

    set_code(app, reference)
    app.get_by_role("button", name="Run tests", exact=True).click()
    expect(local.locator(".verdict")).to_have_attribute("data-verdict", "Accepted", timeout=60_000)
    expect(local.locator(".test.failed, .test.error")).to_have_count(0)
    app.screenshot(path=screenshots / "exercise-tests.png")

    app.get_by_role("button", name="Submit", exact=True).click()
    server_report = app.get_by_test_id("report-server")
    expect(server_report.locator(".verdict")).to_have_attribute("data-verdict", "Accepted", timeout=120_000)
    expect(server_report.locator(".test.passed").first).to_be_visible()
    expect(app.locator(".history-list li")).to_have_count(1)
    app.screenshot(path=screenshots / "exercise-submit.png")

    app.get_by_role("button", name=re.compile("All exercises")).click()
    expect(app.locator(f'.exercise-item[data-id="{EXERCISE}"] .ex-status')).to_have_text("accepted")


def test_training_example_streams_the_loss_to_the_plot(app: Page, screenshots):
    app.get_by_role("button", name="Train an MLP on two moons").click()
    run(app)
    legend = app.get_by_test_id("loss-legend")  # drawn by itself: the example has no plotting code
    expect(app.get_by_role("tab", name="Plot")).to_have_attribute("aria-selected", "true", timeout=60_000)
    expect(legend).to_contain_text("loss:", timeout=60_000)
    wait_idle(app, 120_000)
    expect(legend).to_contain_text("(120 points)")
    app.get_by_role("tab", name="Console").click()
    expect(console(app)).to_contain_text("step 119")
    app.get_by_role("tab", name="Plot").click()
    app.screenshot(path=screenshots / "plot.png")


def test_chinese_text_and_dark_theme(app: Page, screenshots):
    app.get_by_role("button", name="切换到中文").click()
    expect(app.get_by_role("button", name="运行", exact=True)).to_be_enabled()
    expect(app.get_by_role("tab", name="控制台")).to_be_visible()
    assert app.evaluate("document.documentElement.lang") == "zh-CN"
    app.get_by_role("button", name="深色主题").click()
    assert app.evaluate("document.documentElement.dataset.theme") == "dark"
    app.get_by_role("button", name="菱形追踪（ADR 0005）").click()
    app.get_by_role("button", name="运行", exact=True).click()
    expect(app.get_by_test_id("trace-position")).to_have_text("第 0 步，共 5 步", timeout=60_000)
    app.get_by_role("button", name="最后一步").click()
    expect(app.get_by_test_id("trace-position")).to_have_text("第 5 步，共 5 步")
    app.get_by_role("tab", name="练习").click()
    expect(app.locator(".exercise-item").first).to_be_visible()
    app.screenshot(path=screenshots / "zh-dark.png")
    app.reload()  # both choices are kept
    expect(app.get_by_role("button", name="运行", exact=True)).to_be_visible()
    assert app.evaluate("document.documentElement.dataset.theme") == "dark"


def test_loading_shows_each_stage_with_elapsed_time(page: Page, watch, base_url, screenshots):
    page.goto(base_url + "/")
    status = page.get_by_role("status")
    run_button = page.get_by_role("button", name="Run", exact=True)
    expect(status).to_contain_text("Loading")
    expect(run_button).to_be_disabled()
    expect(status).to_contain_text(re.compile(r"\d+\.\d s"))  # elapsed time
    page.screenshot(path=screenshots / "loading.png")
    expect(run_button).to_be_enabled(timeout=60_000)
    breakdown = page.get_by_test_id("load-time").get_attribute("data-stages")
    assert re.fullmatch(r"runtime \d+\.\d s · standard library \d+\.\d s · kael \d+\.\d s", breakdown), breakdown


def test_stop_replaces_the_worker_when_python_does_not_stop(app: Page):
    # time.sleep blocks inside the runtime, where the interrupt buffer is not checked.
    set_code(app, "import time\nprint('sleeping')\ntime.sleep(60)\nprint('woke up')\n")
    run(app)
    expect(console(app)).to_contain_text("sleeping")
    app.wait_for_timeout(300)
    app.get_by_role("button", name="Stop", exact=True).click()
    expect(console(app)).to_contain_text("Python did not stop within 3 seconds; the runtime was restarted.")
    expect(app.get_by_role("status")).to_contain_text("Loading")
    wait_idle(app)
    set_code(app, "print('fresh worker', 3 * 3)")
    run(app)
    expect(console(app)).to_contain_text("fresh worker 9")
    expect(console(app)).not_to_contain_text("woke up")


def test_every_example_runs_without_an_error(app: Page):
    examples = app.locator(".example-item")
    count = examples.count()
    assert count >= 10
    for i in range(count):
        examples.nth(i).click()
        name = examples.nth(i).get_attribute("data-example")
        run(app)
        wait_idle(app, 120_000)
        app.get_by_role("tab", name="Console").click()
        log = console(app)
        expect(log, f"example {name}").to_contain_text("Finished in")
        expect(log.locator(".traceback"), f"example {name}").to_have_count(0)


def test_static_hosting_runs_everything_but_hides_submit(page: Page, watch, static_url, screenshots):
    page.goto(static_url + "/")
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=60_000)
    set_code(page, "print(6*7)")
    run(page)
    expect(console(page)).to_contain_text("42")
    page.get_by_role("tab", name="Exercises").click()
    page.locator(f'.exercise-item[data-id="{EXERCISE}"]').click()
    expect(page.get_by_role("button", name="Run tests", exact=True)).to_be_enabled()
    expect(page.get_by_role("button", name="Submit", exact=True)).to_have_count(0)
    expect(page.get_by_text("Static hosting: no judge server here")).to_be_visible()
    page.get_by_role("button", name="Run tests", exact=True).click()
    local = page.get_by_test_id("report-local")
    expect(local.locator(".verdict")).to_have_attribute("data-verdict", re.compile(".+"), timeout=60_000)
    expect(local.locator(".verdict")).not_to_have_attribute("data-verdict", "Accepted")
    page.screenshot(path=screenshots / "static-exercise.png")


def test_a_flood_of_output_is_trimmed_and_stop_still_answers(app: Page):
    set_code(app, "for i in range(200_000):\n    print(i)\n")
    run(app)
    expect(console(app)).to_contain_text("Finished in", timeout=60_000)
    expect(console(app)).to_contain_text("199999")
    expect(console(app)).to_contain_text("earlier output removed")
    set_code(app, "while True:\n    print('x' * 50)\n")
    run(app)
    expect(console(app)).to_contain_text("xxxxxxxxxx")
    app.get_by_role("button", name="Stop", exact=True).click()
    expect(console(app)).to_contain_text("Stopped.", timeout=10_000)
    wait_idle(app, 10_000)


def test_statement_markdown_is_sanitized_and_math_is_typeset(app: Page, watch):
    # DOMPurify parses the hostile HTML in an inert document; Chromium still reports the inline
    # handler it refused there under the page's CSP. That report is the only console error allowed.
    watch.allow(r"^console error: Executing inline event handler violates the following Content Security Policy")
    hostile = (
        "# Title\n\nInline $a^2 + b^2$ and display:\n\n$$\\sum_j w_j$$\n\n"
        "`$not math$` <img src=x onerror=\"document.body.dataset.pwned=1\"> "
        "<script>document.body.dataset.pwned=1</script>"
        "<a href=\"javascript:document.body.dataset.pwned=1\">link</a>\n"
    )

    def serve(route):
        body = route.fetch().json()
        body["statement"] = {"en": hostile, "zh": hostile}
        route.fulfill(json=body)

    app.route(f"**/api/exercises/{EXERCISE}", serve)
    app.get_by_role("tab", name="Exercises").click()
    app.locator(f'.exercise-item[data-id="{EXERCISE}"]').click()
    statement = app.locator(".statement")
    expect(statement.locator(".katex")).to_have_count(2)
    expect(statement.locator(".katex-display")).to_have_count(1)
    expect(statement.locator("code")).to_have_text("$not math$")
    expect(statement.get_by_role("heading", name="Title")).to_have_count(1)
    assert statement.locator("script").count() == 0
    assert statement.locator("[onerror]").count() == 0
    assert statement.locator("a").get_attribute("href") in (None, "")
    assert app.evaluate("document.body.dataset.pwned") is None
