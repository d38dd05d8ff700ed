"""The Trace tab shows, at every step, the state as of that step and only that: x's gradient in
the diamond is absent until AccumulateGrad writes it at step 5; a step inside a closed group
lights the group up and names the node; function nodes say what shape they produced."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .test_playground import run, set_code, wait_idle

DIAMOND_ORDER = ["SumBackward", "AddBackward", "MulBackward", "MulBackward", "AccumulateGrad"]


def recenter(page: Page) -> None:
    """After a resize: step away and back, so the view centres the step's box again."""
    page.get_by_role("button", name="Previous step").click()
    page.get_by_role("button", name="Next step").click()


def open_trace(page: Page):
    page.get_by_role("tab", name="Trace").click()
    view = page.locator(".trace-view")
    expect(view.locator(".graph-canvas")).to_have_attribute("data-state", "drawn")
    return view


def test_diamond_x_grad_is_absent_until_accumulate_grad_writes_it_at_step_5(app: Page):
    app.get_by_role("button", name=re.compile("The diamond trace")).click()
    run(app)
    wait_idle(app)
    view = open_trace(app)
    position = app.get_by_test_id("trace-position")
    x_box = view.locator('.item.tensor[data-name="x"]')
    grad_line = x_box.locator("text.grad-line")
    for step in range(6):
        if step:
            app.get_by_role("button", name="Next step").click()
        expect(position).to_have_text(f"Step {step} of 5")
        if step:
            expect(view.locator(".item.current")).to_have_attribute("data-name", DIAMOND_ORDER[step - 1])
        wanted = "grad [5, 5]" if step == 5 else "grad None"
        expect(grad_line).to_have_text(wanted)
        expect(x_box).to_have_attribute("aria-label", re.compile(re.escape(wanted)))
        expect(view.locator(".item.function")).to_have_count(4)
    # Back to the start: the gradient goes away again, and x's details agree with its box.
    app.get_by_role("button", name="First step").click()
    expect(grad_line).to_have_text("grad None")
    x_box.click()
    expect(view.locator(".trace-state")).to_contain_text(re.compile(r"Gradient\s*None"))
    app.get_by_role("button", name="Last step").click()
    expect(view.locator(".trace-state")).to_contain_text(re.compile(r"Gradient\s*\[5, 5\]"))
    # Released saved tensors show as released only once their node has run.
    expect(view.locator(".item.function.released")).to_have_count(4)
    app.get_by_role("button", name="First step").click()
    expect(view.locator(".item.function.released")).to_have_count(0)


CHAIN = """import kael
import kael.viz

x = kael.tensor([1.0, 2.0], requires_grad=True)
y = x
for _ in range(80):
    y = y * 1.01
loss = y.sum()
with kael.viz.trace(params=dict(x=x)) as tr:
    loss.backward()
kael.viz.show(tr)
"""


def test_a_step_inside_a_closed_group_lights_the_group_and_names_the_node(app: Page, screenshots):
    set_code(app, CHAIN)
    run(app)
    wait_idle(app)
    view = open_trace(app)
    group = view.locator(".item.group")
    expect(group).to_have_count(1)  # MulBackward × 80, closed: 82 nodes open closed
    for _ in range(3):
        app.get_by_role("button", name="Next step").click()
    expect(app.get_by_test_id("trace-position")).to_have_text("Step 3 of 82")
    expect(group).to_have_class(re.compile(r"\bcurrent\b"))
    expect(group).not_to_have_class(re.compile(r"\bdone\b"))  # most of its nodes still wait
    expect(view.locator(".badges text").filter(has_text="▶ MulBackward #2")).to_have_count(1)
    app.screenshot(path="/tmp/h24shots2/closed-group-1440.png")
    app.set_viewport_size({"width": 390, "height": 844})
    recenter(app)
    app.locator(".trace-view .graph-canvas").scroll_into_view_if_needed()
    app.locator(".trace-view").screenshot(path="/tmp/h24shots2/closed-group-390.png")


BROADCAST = """import kael

p = kael.zeros(8, requires_grad=True)
q = kael.zeros(8, 1)
(p + q).sum()
"""


def test_function_nodes_show_their_output_shape_and_constants_one_way(app: Page):
    set_code(app, BROADCAST)
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Graph").click()
    graph = app.get_by_role("group", name="Autograd graph").first
    add = graph.get_by_role("button", name=re.compile(r"^AddBackward,"))
    expect(add).to_have_attribute("aria-label", re.compile(r"→ \[8, 8\]"))
    add.click()
    output = app.locator(".graph-details .kv").filter(has=app.locator("dt", has_text="output"))
    expect(output.locator("dt")).to_have_text("output")
    expect(output.locator("dd")).to_have_text("[8, 8] float32")
    const = graph.locator(".item.const")
    expect(const).to_have_count(1)
    expect(const).to_have_attribute("aria-label", "constant, [8, 1]")
