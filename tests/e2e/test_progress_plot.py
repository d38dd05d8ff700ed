"""Issue 25, items 4 and 5: a long run shows how far it is, and training draws its loss by itself.

The activation-memory example counts its 14 matrix products on the progress bar above the output
tabs, which goes when the run ends; two moons draws its loss per optimizer step live (one point
per step(), with no plotting code) and shades its decision boundary; a program with two
optimizers and its own playground.plot gets a series each and its own chart; a new run clears
the old curve."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_a11y import AXE, SERIOUS
from .test_playground import console, run, set_code, wait_idle

# Collects, while a run goes, every text the progress bar shows and every point count the loss
# curve has had (a MutationObserver: nothing is missed between two polls).
WATCH = """() => {
  window.__seen = { progress: [], counts: [] };
  const bar = document.querySelector('[data-testid="run-progress"]');
  const note = () => {
    if (!bar.hidden) window.__seen.progress.push(bar.textContent);
    const path = document.querySelector('[data-testid="loss-curve"] path.series');
    if (path) window.__seen.counts.push(Number(path.dataset.points));
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
}"""


def axe_violations(page: Page, selector: str) -> list[str]:
    """Serious and critical axe-core violations inside `selector` (the editor's colours are
    another item of issue 25, checked by test_a11y.py)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    found = page.evaluate("""async (selector) => {
      const r = await axe.run(selector, { resultTypes: ['violations'] });
      return r.violations.flatMap(v => v.nodes.map(n => ({ impact: v.impact, text: `${v.id}: ${v.help} -- ${n.target.join(' ')}` })));
    }""", selector)
    return [f["text"] for f in found if f["impact"] in SERIOUS]


def open_example(page: Page, name: str) -> None:
    page.get_by_role("button", name=re.compile(name)).click()


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_activation_memory_example_counts_its_matrix_products(app: Page, screenshots, size):
    app.set_viewport_size({"width": size[0], "height": size[1]})
    open_example(app, "Activation memory over time")
    app.evaluate(WATCH)
    run(app)
    bar = app.get_by_test_id("run-progress")
    expect(bar).to_be_visible(timeout=60_000)
    expect(bar).to_contain_text(re.compile(r"matrix products \d+/14"))
    app.screenshot(path=screenshots / f"progress-activation-memory-{size[0]}.png")
    problems = axe_violations(app, '[data-testid="run-progress"]')
    wait_idle(app, 180_000)
    expect(bar).to_be_hidden()  # the bar goes with the run
    expect(app.get_by_role("tab", name="Memory")).to_have_attribute("aria-selected", "true")
    app.get_by_role("tab", name="Console").click()
    expect(console(app)).to_contain_text("2686976")
    seen = [int(m.group(1)) for text in app.evaluate("window.__seen.progress")
            for m in [re.search(r"matrix products (\d+)/14", text)] if m]
    assert len(set(seen)) >= 2, seen  # it moved while the run ran
    assert seen == sorted(seen), seen
    assert not problems, "\n".join(problems)


def test_a_stopped_or_failed_run_takes_its_bar_away(app: Page):
    set_code(app, "import playground\nplayground.progress(1, 3, 'parts')\nraise ValueError('no')\n")
    run(app)
    wait_idle(app)
    expect(console(app)).to_contain_text("ValueError")
    expect(app.get_by_test_id("run-progress")).to_be_hidden()


def _path_ys(page: Page) -> list[float]:
    d = page.locator('[data-testid="loss-curve"] path.series').get_attribute("d")
    return [float(y) for y in re.findall(r"[ML] [\d.]+ ([\d.]+)", d)]


def test_two_moons_draws_its_loss_per_step_live_and_its_boundary(app: Page, screenshots):
    open_example(app, "Train an MLP on two moons")
    app.evaluate(WATCH)
    run(app)
    expect(app.get_by_role("tab", name="Plot")).to_have_attribute("aria-selected", "true", timeout=60_000)
    expect(app.get_by_test_id("run-progress")).to_contain_text(re.compile(r"training steps \d+/120"), timeout=60_000)
    app.screenshot(path=screenshots / "plot-training-live.png")
    wait_idle(app, 180_000)
    legend = app.get_by_test_id("loss-legend")
    expect(legend).to_contain_text(re.compile(r"^loss: \S+ \(120 points\)$"))
    counts = app.evaluate("window.__seen.counts")
    assert counts[-1] == 120 and len(set(counts)) >= 3, counts  # it grew while training ran
    ys = _path_ys(app)  # pixels, y down: a falling loss climbs down the chart
    assert len(ys) == 120
    tenth = len(ys) // 10
    assert sum(ys[-tenth:]) / tenth > sum(ys[:tenth]) / tenth + 100, ys
    # The curve's last value is the loss the program printed at its last step.
    drawn = float(re.search(r"loss: (\S+) ", legend.text_content()).group(1))
    app.get_by_role("tab", name="Console").click()
    printed = float(re.search(r"step 119  loss (\S+)", console(app).text_content()).group(1))
    assert abs(drawn - printed) <= 0.05 * printed + 1e-4, (drawn, printed)
    app.get_by_role("tab", name="Plot").click()
    boundary = app.get_by_test_id("boundary")
    expect(boundary).to_have_attribute("data-final", "true")
    expect(boundary).to_have_attribute("data-steps", "120")
    expect(boundary.locator("rect")).to_have_count(32 * 32)
    expect(boundary.locator("circle")).to_have_count(128)
    assert boundary.locator("rect.cls-0").count() > 100 and boundary.locator("rect.cls-1").count() > 100
    expect(app.get_by_text("Decision boundary after 120 steps")).to_be_visible()
    app.screenshot(path=screenshots / "plot-training-1440.png")
    problems = axe_violations(app, ".plot-view")
    assert not problems, "\n".join(problems)
    app.set_viewport_size({"width": 390, "height": 844})
    app.get_by_role("tab", name="Plot").scroll_into_view_if_needed()
    app.screenshot(path=screenshots / "plot-training-390.png", full_page=True)


TWO_OPTIMIZERS = """import kael, playground
from kael import nn
kael.manual_seed(0)
a, b = nn.Linear(3, 1), nn.Linear(3, 1)
sgd, adam = kael.optim.SGD(a.parameters(), lr=0.1), kael.optim.Adam(b.parameters(), lr=0.1)
x, y = kael.randn(16, 3), kael.randn(16, 1)
for step in range(STEPS):
    for model, opt in ((a, sgd), (b, adam)):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    playground.plot("lr", step, 0.1)
adam.step()  # no backward since its last step: no point
print("done", loss.item())
"""


def test_several_optimizers_and_the_learners_own_plot_and_a_new_run_clears(app: Page):
    set_code(app, TWO_OPTIMIZERS.replace("STEPS", "6"))
    run(app)
    wait_idle(app)
    expect(app.get_by_role("tab", name="Plot")).to_have_attribute("aria-selected", "true")
    legend = app.get_by_test_id("loss-legend")
    expect(legend).to_contain_text(re.compile(r"loss \(SGD 1\): \S+ \(6 points\) · loss \(Adam 2\): \S+ \(6 points\)"))
    expect(app.get_by_test_id("plot-legend")).to_have_text("lr: 0.1 (6 points)")
    expect(app.get_by_test_id("boundary")).to_be_hidden()  # nobody asked for one
    app.get_by_role("tab", name="Console").click()
    expect(console(app)).to_contain_text("done")
    set_code(app, TWO_OPTIMIZERS.replace("STEPS", "3").replace("    playground.plot(\"lr\", step, 0.1)\n", ""))
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Plot").click()
    expect(legend).to_contain_text(re.compile(r"loss \(SGD 1\): \S+ \(3 points\) · loss \(Adam 2\): \S+ \(3 points\)"))
    expect(app.get_by_test_id("plot-legend")).to_be_hidden()
