"""The stepper in Chromium: the learner's own forward code recorded line by line and stepped on
the Trace tab's graph, then its backward pass on the same graph; the Graph tab's drawing and the
Memory tab's curve following the same steps; the in-place error's three lines; a long loop cut
with a note; a share link landing on a forward step."""

from __future__ import annotations

import os
import re

from playwright.sync_api import Page, expect

from .test_playground import run, set_code, wait_idle
from .test_trace_truth import recenter

SHOTS = "/tmp/h24shots2"
os.makedirs(SHOTS, exist_ok=True)

DIAMOND = """import kael

x = kael.tensor([1.0, 2.0], dtype=kael.float64, requires_grad=True)
a = x * 2
b = x * 3
loss = (a + b).sum()
loss.backward()
print(x.grad.tolist())
"""

# After each forward step (1-based): the line, and the graph's function and AccumulateGrad
# boxes shown. Lines 1-3 record nothing (x is a leaf: its AccumulateGrad comes with x * 2).
FORWARD = [
    (1, []),
    (3, []),
    (4, ["AccumulateGrad", "MulBackward(a)"]),
    (5, ["AccumulateGrad", "MulBackward(a)", "MulBackward(b)"]),
    (6, ["AccumulateGrad", "AddBackward", "MulBackward(a)", "MulBackward(b)", "SumBackward"]),
    (7, ["AccumulateGrad", "AddBackward", "MulBackward(a)", "MulBackward(b)", "SumBackward"]),
    (8, ["AccumulateGrad", "AddBackward", "MulBackward(a)", "MulBackward(b)", "SumBackward"]),
]
BACKWARD = ["SumBackward", "AddBackward", "MulBackward", "MulBackward", "AccumulateGrad"]


def record_run(page: Page) -> None:
    page.get_by_role("tab", name="Trace").click()
    page.get_by_test_id("record-run").click()
    wait_idle(page)
    expect(page.locator(".trace-view .graph-canvas")).to_have_attribute("data-state", "drawn")


def shown_nodes(view) -> list[str]:
    boxes = view.locator(".item.function:not(.future), .item.accumulate:not(.future)")
    return sorted(boxes.evaluate_all("els => els.map(e => e.getAttribute('aria-label').split(',')[0])"))


def x_grad(view):
    return view.locator('.item.tensor[data-name="x"] text.grad-line')


def test_diamond_stepped_forward_then_backward_on_one_graph(app: Page):
    set_code(app, DIAMOND)
    record_run(app)
    view = app.locator(".trace-view")
    position = app.get_by_test_id("trace-position")
    next_step = app.get_by_role("button", name="Next step")
    editor_step = app.locator(".cm-note-step")
    for i, (line, nodes) in enumerate(FORWARD):
        if i:
            next_step.click()
        expect(position).to_have_text(re.compile(rf"^Forward step {i + 1} of {len(FORWARD)} · line {line}$"))
        expect(editor_step).to_have_count(1)
        expect(app.locator(".cm-line-note-step")).to_have_attribute("data-line", str(line))
        assert shown_nodes(view) == nodes, (i + 1, shown_nodes(view))
        if nodes:
            expect(x_grad(view)).to_have_text("grad None")
    # Step 3 (line 4, a = x * 2): the line's nodes are lit, its saved constant listed with bytes.
    app.get_by_role("button", name="First step").click()
    next_step.click()
    next_step.click()
    expect(view.locator(".item.recorded.function, .item.recorded.accumulate")).to_have_count(2)
    expect(view.locator(".item.recorded.tensor, .item.recorded.const")).to_have_count(2)  # x, the 2
    expect(view.get_by_test_id("fwd-held")).to_have_text("Held by saved tensors: 8 B")
    locals_table = view.get_by_test_id("fwd-locals")
    expect(locals_table.get_by_role("row", name=re.compile(r"^a "))).to_contain_text("MulBackward")
    app.set_viewport_size({"width": 1440, "height": 900})
    app.screenshot(path=f"{SHOTS}/forward-step3-1440.png")
    app.set_viewport_size({"width": 390, "height": 844})
    recenter(app)
    app.locator(".trace-view .graph-canvas").scroll_into_view_if_needed()
    app.locator(".trace-view").screenshot(path=f"{SHOTS}/forward-step3-390.png")
    app.set_viewport_size({"width": 1440, "height": 900})
    # Then the backward pass on the same graph: x's grad is absent until AccumulateGrad, step 5.
    for _ in range(len(FORWARD) - 3):
        next_step.click()
    for step in range(6):
        next_step.click()
        expect(position).to_have_text(f"Backward step {step} of 5")
        assert shown_nodes(view) == FORWARD[-1][1]
        if step:
            expect(view.locator(".item.current")).to_have_attribute("data-name", BACKWARD[step - 1])
        expect(x_grad(view)).to_have_text("grad [5, 5]" if step == 5 else "grad None")
    # The keys step both phases: back from backward step 0 into the last forward step.
    app.keyboard.press("Home")
    expect(position).to_contain_text("Forward step 1 of")
    app.keyboard.press("End")
    expect(position).to_have_text("Backward step 5 of 5")
    app.keyboard.press("ArrowLeft")
    expect(position).to_have_text("Backward step 4 of 5")


def test_clicking_a_node_marks_its_line_and_a_line_lights_its_nodes(app: Page):
    set_code(app, DIAMOND)
    record_run(app)
    view = app.locator(".trace-view")
    app.get_by_role("button", name="Last step").click()
    view.get_by_role("button", name=re.compile(r"^MulBackward\(b\),")).click()
    expect(app.locator(".cm-line-note-recorded")).to_have_attribute("data-line", "5")
    app.locator(".cm-line").nth(3).click()  # line 4: a = x * 2
    expect(view.locator(".item.recorded.function, .item.recorded.accumulate")).to_have_count(2)
    expect(view.locator(".item.recorded").first).to_have_attribute("data-name", re.compile("AccumulateGrad|MulBackward"))


def open_following(page: Page, tab: str):
    """The Graph or Memory tab of a recorded run, its bar showing the stepper's first step."""
    page.get_by_role("tab", name=tab).click()
    panel = page.locator(".graph-view" if tab == "Graph" else ".memory-view")
    expect(panel.get_by_test_id(f"{tab.lower()}-step-position")).to_have_text(re.compile(r"^Forward step 1 of "))
    return panel


def saved_lines(view, name: str):
    return view.locator(f'.item:not(.future)[data-name="{name}"] text').filter(has_text=re.compile(r" B$"))


def test_graph_tab_grows_with_the_forward_steps_and_plays_the_backward(app: Page):
    set_code(app, DIAMOND)
    record_run(app)
    view = open_following(app, "Graph")
    expect(view.locator(".graph-canvas")).to_have_attribute("data-state", "drawn")
    position = view.get_by_test_id("graph-step-position")
    next_step = view.get_by_role("button", name="Next step")
    for i, (line, nodes) in enumerate(FORWARD):
        if i:
            next_step.click()
        expect(position).to_have_text(re.compile(rf"^Forward step {i + 1} of {len(FORWARD)} · line {line}$"))
        expect(app.locator(".cm-line-note-step")).to_have_attribute("data-line", str(line))
        assert shown_nodes(view) == nodes, (i + 1, shown_nodes(view))
        if i == 2:  # a = x * 2: its two boxes lit, its saved constant drawn with its bytes
            expect(view.locator(".item.recorded.function, .item.recorded.accumulate")).to_have_count(2)
            expect(saved_lines(view, "MulBackward")).to_have_text(["other [] 8 B"])
            app.screenshot(path=f"{SHOTS}/graph-tab-forward-step3-1440.png")
            app.set_viewport_size({"width": 390, "height": 844})
            next_step.click()
            view.get_by_role("button", name="Previous step").click()
            expect(position).to_have_text(re.compile(r"^Forward step 3 of "))
            app.screenshot(path=f"{SHOTS}/graph-tab-forward-step3-390.png", full_page=True)
            app.set_viewport_size({"width": 1440, "height": 900})
        if nodes:
            expect(x_grad(view)).to_have_text("grad None")
    # The same stepper: the Trace tab is where the Graph tab's bar left it, and back again.
    app.get_by_role("tab", name="Trace").click()
    expect(app.get_by_test_id("trace-position")).to_have_text(re.compile(rf"^Forward step {len(FORWARD)} of "))
    app.get_by_role("tab", name="Graph").click()
    for step in range(6):
        next_step.click()
        expect(position).to_have_text(f"Backward step {step} of 5")
        assert shown_nodes(view) == FORWARD[-1][1]
        if step:
            expect(view.locator(".item.current")).to_have_attribute("data-name", BACKWARD[step - 1])
        expect(x_grad(view)).to_have_text("grad [5, 5]" if step == 5 else "grad None")
    app.screenshot(path=f"{SHOTS}/graph-tab-backward-step5-1440.png")
    # Its keys step both phases too.
    view.get_by_role("button", name="Previous step").focus()
    app.keyboard.press("Home")
    expect(position).to_have_text(re.compile(r"^Forward step 1 of "))
    assert shown_nodes(view) == []


# The bytes held by saved tensors at each stepper step of DIAMOND: the lines (x * 2 and x * 3
# save a float64 constant each; backward() on line 7 releases them), then the backward pass's
# frames (start, Sum, Add, then each Mul frees its 8 bytes, AccumulateGrad).
HELD = [0, 0, 8, 16, 16, 0, 0] + [16, 16, 16, 8, 0, 0]


def test_memory_tab_curve_follows_the_steps(app: Page):
    set_code(app, DIAMOND)
    record_run(app)
    view = open_following(app, "Memory")
    card = view.get_by_test_id("stepper-memory")
    position = view.get_by_test_id("memory-step-position")
    next_step = view.get_by_role("button", name="Next step")
    for i, held in enumerate(HELD):
        if i:
            next_step.click()
        expect(card).to_have_attribute("data-step", str(i))
        expect(card).to_have_attribute("data-bytes", str(held))
        expect(view.get_by_test_id("stepper-memory-held")).to_contain_text(f"{held} B held by saved tensors")
        if i == 3:
            expect(position).to_have_text(re.compile(r"^Forward step 4 of 7 · line 5$"))
            app.screenshot(path=f"{SHOTS}/memory-tab-forward-step4-1440.png")
    expect(position).to_have_text("Backward step 5 of 5")
    expect(card.locator("svg text", has_text="backward (run by line 7)")).to_have_count(1)
    app.screenshot(path=f"{SHOTS}/memory-tab-backward-step5-1440.png")
    app.set_viewport_size({"width": 390, "height": 844})
    app.screenshot(path=f"{SHOTS}/memory-tab-backward-step5-390.png", full_page=True)
    app.set_viewport_size({"width": 1440, "height": 900})
    # Stepping on the Trace tab moves the curve too.
    app.get_by_role("tab", name="Trace").click()
    app.get_by_role("button", name="First step").click()
    app.get_by_role("tab", name="Memory").click()
    expect(card).to_have_attribute("data-step", "0")


TWO_MOONS_LIKE = """import kael

w = kael.ones(4, requires_grad=True)
for step in range(5):
    loss = (w * w).sum()
    loss.backward()
"""


def test_only_the_first_backward_passes_are_traced_with_a_note(app: Page):
    set_code(app, TWO_MOONS_LIKE)
    record_run(app)
    notice = app.get_by_test_id("fwd-notice")
    expect(notice).to_have_text("The first 3 of 5 backward passes are traced; the others ran untraced.")
    view = open_following(app, "Graph")
    expect(view.get_by_test_id("graph-step-notice")).to_have_text(
        "The first 3 of 5 backward passes are traced; the others ran untraced.")


INPLACE = """import kael

x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = kael.tensor([0.5, -1.0, 2.0])
y = x * w
w.mul_(2)
loss = y.sum()
loss.backward()
"""


def test_inplace_error_marks_its_three_lines_each_with_what_happened(app: Page):
    set_code(app, INPLACE)
    run(app)
    wait_idle(app)
    notes = app.locator(".cm-line-note")
    expect(notes).to_have_count(3)
    expect(app.locator(".cm-line-note-saved")).to_have_attribute("data-line", "5")
    expect(app.locator(".cm-line-note-saved")).to_have_text("MulBackward saved this tensor here, at version 0")
    expect(app.locator(".cm-line-note-modified")).to_have_attribute("data-line", "6")
    expect(app.locator(".cm-line-note-modified")).to_have_text("modified in place here: version 0 → 1")
    expect(app.locator(".cm-line-note-backward")).to_have_attribute("data-line", "8")
    expect(app.locator(".cm-line-note-backward")).to_contain_text("expected 0")
    expect(app.get_by_role("log")).to_contain_text("saved by MulBackward at line 5: y = x * w; modified at line 6: w.mul_(2)")
    app.screenshot(path=f"{SHOTS}/inplace-1440.png")
    app.set_viewport_size({"width": 390, "height": 844})
    app.screenshot(path=f"{SHOTS}/inplace-390.png", full_page=True)
    app.set_viewport_size({"width": 1440, "height": 900})
    # The switch turns source lines off: only the backward line is left to mark.
    app.get_by_test_id("detect-source").uncheck()
    run(app)
    wait_idle(app)
    expect(notes).to_have_count(1)
    expect(app.locator(".cm-line-note-backward")).to_have_attribute("data-line", "8")
    app.get_by_test_id("detect-source").check()


def test_the_inplace_example_marks_its_three_lines_at_the_traced_error(app: Page):
    app.get_by_role("button", name=re.compile("The in-place version error")).click()
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Trace").click()
    app.get_by_role("button", name="Last step").click()
    expect(app.locator(".trace-view .item.error")).to_have_count(1)
    expect(app.locator(".cm-line-note-saved")).to_have_attribute("data-line", "8")  # y = x * w
    expect(app.locator(".cm-line-note-modified")).to_have_attribute("data-line", "9")  # w.mul_(2)
    expect(app.locator(".cm-line-note-backward")).to_have_attribute("data-line", "15")  # loss.backward()
    app.screenshot(path=f"{SHOTS}/inplace-example-trace-1440.png")
    app.get_by_role("button", name="First step").click()
    expect(app.locator(".cm-line-note")).to_have_count(0)


LOOP = "import kael\n\ny = kael.ones(2, requires_grad=True)\nfor i in range(1000):\n    y = y * 1.0\nprint('done', y.sum().item())\n"


def test_a_1000_line_loop_is_cut_at_the_cap_with_its_note(app: Page):
    set_code(app, LOOP)
    record_run(app)
    notice = app.get_by_test_id("fwd-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("stopped after 1000 lines")
    expect(app.get_by_test_id("trace-position")).to_have_text(re.compile(r"^Forward step 1 of 1000 · line 1$"))
    expect(app.locator(".forward-table tbody tr")).to_have_count(1000)
    app.get_by_role("tab", name="Console").click()
    expect(app.get_by_role("log")).to_contain_text("done 2.0")  # the program ran to its end


def test_share_link_lands_on_a_forward_step(app: Page, base_url):
    set_code(app, DIAMOND)
    record_run(app)
    for _ in range(3):
        app.get_by_role("button", name="Next step").click()
    expect(app.get_by_test_id("trace-position")).to_have_text(re.compile(r"^Forward step 4 of 7 · line 5$"))
    app.get_by_role("button", name="Share").click()
    link = app.get_by_role("textbox", name=re.compile("Share link|link", re.I)).input_value()
    assert "forward=1" in link and "step=3" in link
    fresh = app.context.new_page()
    fresh.goto(link)
    expect(fresh.get_by_test_id("trace-position")).to_have_text(
        re.compile(r"^Forward step 4 of 7 · line 5$"), timeout=120_000)
    expect(fresh.locator(".cm-line-note-step")).to_have_attribute("data-line", "5")
    fresh.close()


def test_stepper_and_error_notes_have_no_serious_accessibility_violations(app: Page):
    from .test_a11y import axe_violations

    set_code(app, DIAMOND)
    record_run(app)
    for _ in range(2):
        app.get_by_role("button", name="Next step").click()
    problems = axe_violations(app, "forward step 3")
    app.get_by_role("button", name="Last step").click()
    problems += axe_violations(app, "backward step 5")
    app.get_by_role("button", name="Dark theme").click()
    problems += axe_violations(app, "backward step 5, dark")
    set_code(app, INPLACE)
    run(app)
    wait_idle(app)
    problems += axe_violations(app, "in-place error notes, dark")
    assert not problems, "\n".join(problems)
