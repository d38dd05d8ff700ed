"""Graphs of real models in Chromium (issue 14): an MLP with module boxes, 1,000- and
10,000-node chains opened as summaries, the diamond stepped with its buffers and legend, the
in-place example's stale saved tensor in words, and the activation-memory view of the
notebook's example.

Frame gaps (the longest time between two animation frames, and the main thread's long tasks)
are measured while graphs lay out and draw and while the trace steps; they are printed, and
asserted only against bounds that no loaded CI machine comes near (a frozen page takes
seconds). Screenshots go to screenshots/.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .test_playground import run, set_code, wait_idle

# The longest frame gap tolerated before a test fails: a page frozen by a synchronous layout of
# a 1,000-node graph took seconds (issue 14); a responsive one stays far below this under load.
FROZEN_MS = 5_000

MONITOR = """() => {
  const m = { max: 0, frames: 0, longTasks: [], on: true, last: performance.now() };
  const tick = (t) => { const d = t - m.last; if (d > m.max) m.max = d; m.last = t; m.frames++; if (m.on) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  try {
    m.observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) m.longTasks.push(e.duration); });
    m.observer.observe({ type: "longtask" });
  } catch (e) { /* no long-task timing in this browser */ }
  window.__frames = m;
}"""

READ = """() => {
  const m = window.__frames; m.on = false; if (m.observer) m.observer.disconnect();
  return { max: m.max, frames: m.frames, longest_task: Math.max(0, ...m.longTasks), long_tasks: m.longTasks.length };
}"""


def start_frames(page: Page) -> None:
    page.evaluate(MONITOR)


def report_frames(page: Page, what: str) -> dict:
    m = page.evaluate(READ)
    print(f"\n[frames] {what}: longest frame gap {m['max']:.0f} ms over {m['frames']} frames; "
          f"{m['long_tasks']} long tasks, longest {m['longest_task']:.0f} ms")
    assert m["max"] < FROZEN_MS, f"the page froze for {m['max']:.0f} ms while {what}"
    return m


def graph_canvas(page: Page):
    return page.locator(".graph-view .graph-canvas")


def run_program(page: Page, code: str, timeout: float = 120_000, measure: bool = False) -> None:
    """Runs `code`; with `measure`, starts the frame measurement after the code is typed (the
    editor's work is not the graph's) and waits with a CSS locator: Playwright's role queries
    walk the page's whole DOM on its main thread, a cost of the harness, not of the page."""
    set_code(page, code)
    if measure:
        start_frames(page)
    run(page)
    expect(page.locator("button.run")).to_be_enabled(timeout=timeout)


MLP = """\
import kael
import kael.viz
nn = kael.nn
kael.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
x = kael.randn(4, 2)
target = kael.ones(4, 1)
loss = ((model(x) - target) ** 2).mean()
loss.backward()
kael.viz.show(loss)
"""


def test_mlp_is_drawn_with_module_boxes_names_and_gradients(app: Page, screenshots):
    run_program(app, MLP, measure=True)
    app.get_by_role("tab", name="Graph").click()
    canvas = graph_canvas(app)
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=30_000)
    report_frames(app, "an MLP 2-16-16-1 ran, laid out and drew")
    # One open box per module call: the Sequential and its five children.
    labels = [t.strip() for t in canvas.locator(".cluster-label").all_text_contents()]
    assert "▾ Sequential" in labels and len(labels) == 6, labels
    assert any(label.startswith("▾ 0: Linear(in_features=2, out_features=16") for label in labels), labels
    expect(canvas.locator(".item.function[data-name='LinearBackward']")).to_have_count(3)
    # Names from the program: the parameters by their path in `model`, no internal ids.
    items = canvas.locator(".item")
    names = " ".join(items.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))"))
    assert "model.0.weight" in names and "loss" in names and "[n" not in names
    assert re.search(r"model\.4\.bias, \[1\] float32, = \[[^\]]*\], grad \[", names), names
    # An open Linear holds the nodes its call recorded: one fused LinearBackward and the weight
    # and bias leaves (kael's linear is one op, as PyTorch's AddmmBackward0), and the legend says so.
    linear = canvas.locator(".cluster", has_text="0: Linear").locator(".cluster-box").bounding_box()
    for member in (".item.function[data-name='LinearBackward']", ".item.tensor[aria-label^='model.0.weight,']",
                   ".item.tensor[aria-label^='model.0.bias,']"):
        inside = [b for b in (e.bounding_box() for e in canvas.locator(member).all()) if b and
                  linear["x"] <= b["x"] and b["x"] + b["width"] <= linear["x"] + linear["width"] and
                  linear["y"] <= b["y"] and b["y"] + b["height"] <= linear["y"] + linear["height"]]
        assert len(inside) == 1, member
    app.screenshot(path=screenshots / "graph-mlp-modules.png")
    for _ in range(3):  # the whole MLP, small: the screenshot shows every module box at once
        app.get_by_role("button", name="Zoom out").click()
    canvas.screenshot(path=screenshots / "graph-mlp-modules-canvas.png")
    app.get_by_role("button", name="Fit").click()
    legend = app.get_by_test_id("graph-legend")
    legend.locator("summary").click()
    expect(legend).to_contain_text("kael's Linear is one fused op")
    legend.locator("summary").click()

    # A module box closes to one box and opens again (by keyboard: it may lie outside the view).
    canvas.locator(".cluster", has_text="0: Linear").focus()
    app.keyboard.press("Enter")
    expect(canvas.locator(".item.group.module")).to_have_count(1)
    canvas.locator(".item.group.module").focus()
    app.keyboard.press("Enter")
    expect(canvas.locator(".item.group.module")).to_have_count(0)
    expect(canvas.locator(".cluster")).to_have_count(6)


def chain(n: int) -> str:
    return f"""\
import kael
import kael.viz
x = kael.tensor(1.0, requires_grad=True)
y = x
for _ in range({n - 1}):
    y = y + 1
kael.viz.show(y)
"""


def test_a_1000_node_chain_opens_as_a_summary_and_draws_whole_without_freezing(app: Page, screenshots):
    run_program(app, chain(1000))
    app.get_by_role("tab", name="Graph").click()
    canvas = graph_canvas(app)
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=30_000)
    expect(app.get_by_test_id("graph-totals")).to_contain_text("1000 nodes")
    group = canvas.locator(".item.group.chain")
    expect(group).to_have_count(1)
    expect(group).to_have_attribute("aria-label", re.compile(r"^▸ AddBackward × 999,"))
    app.screenshot(path=screenshots / "graph-chain-1000-summary.png")

    start_frames(app)
    app.get_by_role("button", name="Open all groups").click()
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=60_000)
    svg = canvas.locator("svg")
    assert int(svg.get_attribute("data-items")) >= 1000  # every node laid out; those in view drawn
    expect(canvas.locator(".item.function").first).to_be_visible()
    drawn_at_first = int(svg.get_attribute("data-drawn"))
    for _ in range(6):  # zoom out: the boxes coming into view are drawn a few per frame
        app.get_by_role("button", name="Zoom out").click()
    expect(svg).not_to_have_attribute("data-drawn", str(drawn_at_first))
    app.wait_for_timeout(1_000)  # let the drawing of the newly visible boxes run (measured, not awaited)
    m = report_frames(app, "a 1,000-node chain laid out (worker), drew, and drew more while zooming out")
    print(f"[layout] 1,000-node chain: {canvas.get_attribute('data-layout-ms')} ms in the layout worker; "
          f"boxes drawn {drawn_at_first} at first, {svg.get_attribute('data-drawn')} after zooming out, "
          f"of {svg.get_attribute('data-items')}; longest frame gap {m['max']:.0f} ms (issue 14's bound: 100 ms)")


def test_a_10000_node_chain_opens_as_a_summary_that_expands(app: Page, screenshots):
    run_program(app, chain(10_000), timeout=180_000, measure=True)
    app.get_by_role("tab", name="Graph").click()
    canvas = graph_canvas(app)
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=60_000)
    report_frames(app, "a 10,000-node chain ran and opened as a summary")
    expect(app.get_by_test_id("graph-totals")).to_contain_text("10000 nodes")
    group = canvas.locator(".item.group.chain")
    expect(group).to_have_attribute("aria-label", re.compile(r"^▸ AddBackward × 9999,"))
    app.screenshot(path=screenshots / "graph-chain-10000-summary.png")

    start_frames(app)
    group.click()  # opens the first 200 of the chain; the rest stays one box
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=60_000)
    expect(canvas.locator(".item.function[data-name='AddBackward']").first).to_be_visible()
    # The rest of the chain is still one box, at the bottom (drawn when scrolled into view).
    expect(app.get_by_test_id("graph-status")).to_contain_text("for 10000 nodes")
    assert int(canvas.locator("svg").get_attribute("data-items")) > 400
    report_frames(app, "200 nodes of a 10,000-node chain opened")


DAG_10K = """\
import random
import kael
import kael.viz
rng = random.Random(0)
pool = [kael.tensor(float(i), requires_grad=True) for i in range(8)]
for _ in range(10_000):  # each op takes two of the last 200 results: a wide DAG, no chain
    a, b = rng.choice(pool[-200:]), rng.choice(pool[-200:])
    pool.append(a * b if rng.random() < 0.5 else (a + b).tanh())
out = pool[-1]
for t in pool[-60:-1]:
    out = out + t
kael.viz.show(out)
"""


def test_a_10000_node_dag_opens_as_depth_bands_that_open_one_level(app: Page, screenshots):
    run_program(app, DAG_10K, timeout=240_000, measure=True)
    app.get_by_role("tab", name="Graph").click()
    canvas = graph_canvas(app)
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=60_000)
    report_frames(app, "a 10,000-node DAG (no chain) ran and opened as depth bands")
    bands = canvas.locator(".item.group.band")
    count = bands.count()
    assert 2 <= count <= 100, count
    labels = bands.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    # Each band says its depths, how many nodes it holds and what they mostly are.
    assert all(re.match(r"^▸ depth \d+(–\d+)?, [\d,]+ nodes · click to open, \w+Backward × \d+", lb) for lb in labels), labels[:3]
    total = sum(int(re.search(r", ([\d,]+) nodes", lb).group(1).replace(",", "")) for lb in labels)
    expect(app.get_by_test_id("graph-totals")).to_contain_text(f"{total} nodes")  # the bands cover every node
    assert total > 10_000
    app.screenshot(path=screenshots / "graph-dag-10000-bands.png")

    start_frames(app)
    first = labels[0].split(",")[0][2:]
    bands.first.focus()  # the widest layouts open on the output: the first band may lie outside the view
    app.keyboard.press("Enter")
    expect(canvas.locator(".cluster-label", has_text=first)).to_have_count(1, timeout=60_000)
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=60_000)
    # The others stay closed; the open one shows its own bands (a band of 10,000 nodes holds
    # bands) or its nodes, around which its cluster is drawn.
    assert int(canvas.locator("svg").get_attribute("data-items")) > count
    assert canvas.locator(".item.group.band[data-name='▸ " + labels[1].split(",")[0][2:] + "']").count() == 1
    report_frames(app, "one band of a 10,000-node DAG opened")
    app.screenshot(path=screenshots / "graph-dag-10000-band-open.png")
    # The open band closes again from its label.
    canvas.locator(".cluster", has_text=first).focus()
    app.keyboard.press("Enter")
    expect(canvas.locator(".item.group.band")).to_have_count(count)


TANH_LOOP = """\
import kael
import kael.viz
x = kael.tensor([1.0, -1.0], requires_grad=True)
w = kael.tensor([0.5, 0.25], requires_grad=True)
b = kael.tensor([0.1, 0.2], requires_grad=True)
h = x
for _ in range(100):
    h = (h * w + b).tanh()
kael.viz.show(h.sum())
"""


def test_a_repeated_block_of_three_ops_is_one_group_that_opens(app: Page):
    run_program(app, TANH_LOOP)
    app.get_by_role("tab", name="Graph").click()
    canvas = graph_canvas(app)
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=30_000)
    group = canvas.locator(".item.group.chain")
    expect(group).to_have_count(1)
    expect(group).to_have_attribute("aria-label", re.compile(r"^▸ \[Tanh → Add → Mul\] × 100, 300 nodes"))
    # x, w and b (w and b feed every block) are drawn once each, outside the group, by name.
    for name in "xwb":
        expect(canvas.locator(f".item.tensor[aria-label^='{name}, [2]']")).to_have_count(1)
    group.click()  # opens whole blocks: 66 of them (198 nodes), the other 34 stay one box
    expect(group).to_have_attribute("aria-label", re.compile(r"^▸ \[Tanh → Add → Mul\] × 34, 102 nodes"), timeout=30_000)
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=30_000)
    # Drawn (a layout this small is drawn whole): SumBackward, the 198 nodes of 66 blocks, the
    # group of the rest, 3 AccumulateGrad nodes with their 3 leaves, and the output.
    assert int(canvas.locator("svg").get_attribute("data-items")) == 1 + 198 + 1 + 3 + 3 + 1
    for name in ("TanhBackward", "AddBackward", "MulBackward"):
        expect(canvas.locator(f".item.function[data-name='{name}']")).to_have_count(66)


def test_diamond_trace_keeps_the_waiting_buffer_centres_the_node_and_has_a_legend(app: Page, screenshots):
    app.get_by_role("button", name=re.compile("The diamond trace")).click()
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Trace").click()
    trace = app.locator(".trace-view")
    expect(trace.locator(".graph-canvas")).to_have_attribute("data-state", "drawn")
    expect(trace.locator(".trace-legend")).to_contain_text("running now")
    expect(trace.locator(".trace-legend")).to_contain_text("on the ready stack")
    position = app.get_by_test_id("trace-position")
    next_step = app.get_by_role("button", name="Next step")
    start_frames(app)
    step_ms = []
    for step in range(1, 6):
        next_step.click()
        expect(position).to_have_text(f"Step {step} of 5")
        step_ms.append(float(position.get_attribute("data-step-ms")))
        if step == 4:
            # MulBackward(b) added [3, 3] to AccumulateGrad's [2, 2]: it now waits with [5, 5].
            expect(app.get_by_test_id("buffers")).to_contain_text("AccumulateGrad: [5, 5]")
            app.screenshot(path=screenshots / "trace-diamond-step4.png")
        current = trace.locator(".item.current")
        expect(current).to_have_count(1)
        box, view = current.bounding_box(), trace.locator(".graph-canvas svg").bounding_box()
        assert view["x"] <= box["x"] + box["width"] / 2 <= view["x"] + view["width"]
        assert view["y"] <= box["y"] + box["height"] / 2 <= view["y"] + view["height"]
    report_frames(app, "the diamond stepped through five steps")
    print(f"[steps] diamond: {', '.join(f'{ms:.1f}' for ms in step_ms)} ms per step")
    expect(app.get_by_test_id("step-result")).to_have_text("x.grad = [5, 5]")


TRACE_CHAIN = """\
import kael
import kael.viz
x = kael.tensor(1.0, requires_grad=True)
y = x
for _ in range(999):
    y = y * 1.001
with kael.viz.trace() as tr:
    y.backward()
kael.viz.show(tr)
"""


def test_stepping_a_1000_node_trace_lays_nothing_out(app: Page):
    run_program(app, TRACE_CHAIN)
    app.get_by_role("tab", name="Trace").click()
    trace = app.locator(".trace-view")
    canvas = trace.locator(".graph-canvas")
    expect(canvas).to_have_attribute("data-state", "drawn", timeout=60_000)
    position = app.get_by_test_id("trace-position")
    expect(position).to_have_text("Step 0 of 1000")
    layout_ms = canvas.get_attribute("data-layout-ms")
    start_frames(app)
    step_ms = []
    next_step = app.get_by_role("button", name="Next step")
    for step in range(1, 31):
        next_step.click()
        expect(position).to_have_text(f"Step {step} of 1000")
        step_ms.append(float(position.get_attribute("data-step-ms")))
    app.get_by_role("button", name="Last step").click()
    expect(position).to_have_text("Step 1000 of 1000")
    step_ms.append(float(position.get_attribute("data-step-ms")))
    report_frames(app, "a 1,000-node trace stepped 30 times and jumped to the end")
    assert canvas.get_attribute("data-layout-ms") == layout_ms  # no new layout while stepping
    step_ms.sort()
    print(f"[steps] 1,000-node trace: median {step_ms[len(step_ms) // 2]:.1f} ms, "
          f"slowest {step_ms[-1]:.1f} ms per step (issue 14's bound: 16 ms); jump to the end included")
    expect(app.get_by_test_id("step-result")).to_contain_text("x.grad")


def test_inplace_example_names_w_and_says_why_its_saved_tensor_is_stale(app: Page):
    app.get_by_role("button", name=re.compile("in-place", re.IGNORECASE)).first.click()
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Graph").click()
    canvas = graph_canvas(app)
    expect(canvas).to_have_attribute("data-state", "drawn")
    expect(canvas.locator(".item.const")).to_have_attribute("aria-label", re.compile(r"^constant, w \[3\]"))  # constants are named one way (issue 24)
    canvas.get_by_role("button", name=re.compile(r"^MulBackward")).click()
    expect(app.locator(".graph-details")).to_contain_text(
        "modified in place after it was saved: version 1, saved at version 0")


def test_memory_view_shows_the_notebooks_byte_counts_forward_and_backward(app: Page, screenshots):
    # The notebook's sizes through forward and backward: 14 pure-Python matrix products of
    # 16.7 million multiply-adds each (minutes on a loaded machine).
    app.get_by_role("button", name=re.compile("Activation memory over time")).click()
    run(app)
    wait_idle(app, 600_000)
    finished = re.search(r"Finished in ([^.]*(\.\d+)?[^.]*)\.", app.locator(".console-output").text_content() or "")
    print(f"\n[memory] the notebook-size example, forward and backward, plain and checkpoint: "
          f"finished in {finished.group(1) if finished else '?'} (Pyodide, pure-Python backend)")
    app.get_by_role("tab", name="Memory").click()
    cards = app.get_by_test_id("memory-card")
    expect(cards).to_have_count(2)
    plain, ckpt = cards.nth(0), cards.nth(1)
    expect(plain.get_by_test_id("memory-forward")).to_have_text("forward saved 5 tensors, 2,686,976 bytes")
    expect(plain.get_by_test_id("memory-backward")).to_have_text("backward freed 5 tensors, 2,686,976 bytes")
    expect(ckpt.get_by_test_id("memory-forward")).to_have_text("forward saved 3 tensors, 2,162,688 bytes")
    expect(ckpt.get_by_test_id("memory-backward")).to_have_text(
        "backward saved 5 tensors again, 2,686,976 bytes (recomputed); 3 of them were still held from "
        "the forward: no new memory; backward freed 8 tensors, 4,849,664 bytes")
    # X, W1 and W2 saved again by the recompute are the memory the forward's saves still hold:
    # the peak is the plain one (the weights dominate this example), not the sum of the saves.
    for card in (plain, ckpt):
        expect(card.get_by_test_id("memory-peak")).to_contain_text("(2,686,976 B)")
    expect(plain.locator(".memory-saves li")).to_have_count(5)
    expect(ckpt.locator(".memory-saves li.backward")).to_have_count(5)  # recomputed in backward
    # Each chart has its backward part: the curve steps down to 0 as backward frees.
    for card in (plain, ckpt):
        expect(card.locator(".memory-chart .phase-backward")).to_have_count(1)
        expect(card.locator(".memory-chart .mark.free")).to_have_count(5 if card is plain else 8)
    app.screenshot(path=screenshots / "memory.png")
