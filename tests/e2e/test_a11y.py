"""axe-core (web/node_modules, pinned in web/package.json) on every view of the page, in both
themes and both languages, at desktop and phone size: no serious or critical violation, and no
rule left out. The views: the start, the editor holding a program with escapes in its strings,
the Memory tab's 14 cards, each output tab (Console, Graph, Trace, Plot, Memory) after the
repeated-input example ran, a traceback, the Learn tab's course map and its first lesson, the
exercise list, and an exercise with a failing report and a hint. Each variant prints axe's counts
per view (the table the closing note quotes)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import REPO

AXE = REPO / "web" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = {"serious", "critical"}
SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
OUTPUT_TABS = ["console", "graph", "trace", "plot", "memory"]


def axe_results(page: Page) -> list[dict]:
    """axe's violations on the page as it is now: id, impact, help and one line per node."""
    if not page.evaluate("typeof window.axe === 'object'"):
        # evaluate runs outside the page's CSP (which forbids inline scripts, rightly).
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    return page.evaluate(
        """async () => {
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(' ') + ' :: '
              + (n.failureSummary || '').split('\\n').slice(1, 2).join('')) }));
        }"""
    )


def axe_violations(page: Page, where: str) -> list[str]:
    """Serious and critical violations on the page as it is now, one line per offending node."""
    found = []
    for v in axe_results(page):
        if v["impact"] in SERIOUS:
            found += [f"[{where}] {v['id']} ({v['impact']}): {v['help']} -- {n}" for n in v["nodes"][:8]]
    return found


class Survey:
    """axe's counts (violating nodes per impact) for each view of one variant, and the problems."""

    def __init__(self, page: Page, variant: str):
        self.page, self.variant = page, variant
        self.rows: list[tuple[str, dict[str, int]]] = []
        self.problems: list[str] = []

    def check(self, view: str) -> None:
        counts = {"critical": 0, "serious": 0, "moderate": 0, "minor": 0}
        results = axe_results(self.page)
        for v in results:
            counts[v["impact"]] = counts.get(v["impact"], 0) + len(v["nodes"])
            if v["impact"] in SERIOUS:
                self.problems += [f"[{self.variant} {view}] {v['id']} ({v['impact']}): {v['help']} -- {n}"
                                  for n in v["nodes"][:8]]
        self.rows.append((view, counts))

    def table(self) -> str:
        head = f"{'variant':<10} {'view':<32} critical serious moderate minor"
        lines = [f"{self.variant:<10} {view:<32} {c['critical']:>8} {c['serious']:>7} {c['moderate']:>8} {c['minor']:>5}"
                 for view, c in self.rows]
        return "\n".join([head, *lines])


@pytest.fixture(params=["en-light", "en-dark", "zh-light", "zh-dark"])
def variant(request, page: Page, watch, base_url):
    lang, theme = request.param.split("-")
    page.add_init_script(f"localStorage.setItem('kael.lang', '{lang}'); localStorage.setItem('kael.theme', '{theme}')")
    page.goto(base_url + "/")
    expect(page.locator("button.run")).to_be_enabled(timeout=120_000)
    assert page.evaluate("document.documentElement.dataset.theme || 'light'") == theme
    assert page.evaluate("document.documentElement.lang") in (lang, "zh-CN")
    return request.param


def each_size(survey: Survey, view: str, before=None) -> None:
    """Check a view at desktop and at phone size (`before` brings the view back after a resize)."""
    for size, viewport in SIZES.items():
        survey.page.set_viewport_size(viewport)
        if before:
            before()
        survey.check(f"{view} @{size}")
    survey.page.set_viewport_size(SIZES["desktop"])


def set_code(page: Page, code: str) -> None:
    page.locator(".cm-content").click()  # the editor's name is in the page's language
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def run_until(page: Page, shown) -> None:
    """Run the editor's code; return once `shown` is visible and Run is offered again."""
    page.locator("button.run").click()
    expect(shown).to_be_visible(timeout=60_000)
    expect(page.locator("button.run")).to_be_enabled(timeout=60_000)


def survey_outputs(survey: Survey) -> None:
    page = survey.page
    # The editor's colours on a program with escapes in its strings (#e40 was 3.84:1).
    page.locator('[data-example="saved-tensors"]').click()
    each_size(survey, "editor saved-tensors")
    # The Memory tab's cards scroll: the scroller must be reachable by keyboard.
    page.locator('[data-example="activation-memory"]').click()
    page.locator("button.run").click()
    expect(page.locator(".memory-view.has-memory")).to_have_count(1, timeout=120_000)
    expect(page.locator("button.run")).to_be_enabled(timeout=120_000)
    each_size(survey, "tab memory (14 cards)", lambda: page.locator('[data-tab="memory"]').click())
    # x * x: a node whose lines end and begin with words ("12 B", "self ..."), named by both.
    page.locator('[data-example="repeated-input"]').click()
    run_until(page, page.get_by_test_id("trace-position"))
    for tab in OUTPUT_TABS:
        each_size(survey, f"tab {tab}", lambda tab=tab: page.locator(f'[data-tab="{tab}"]').click())
    set_code(page, "import kael\nx = kael.ones(2, 3)\nx @ kael.ones(4, 5)\n")
    run_until(page, page.locator("[role=log] .traceback"))
    each_size(survey, "traceback")


def survey_learn(survey: Survey) -> None:
    page = survey.page
    page.locator('[data-tab="learn"]').click()
    expect(page.locator(".lesson-item").first).to_be_visible()
    each_size(survey, "learn map")
    page.locator(".lesson-item").first.click()
    expect(page.locator(".question").first).to_be_visible()
    each_size(survey, "learn lesson")


def survey_exercises(survey: Survey, screenshots) -> None:
    page = survey.page
    page.locator('[data-tab="exercises"]').click()
    if page.locator(".exercise-heading").count():  # the lesson's exercise link may have opened one
        page.locator(".exercises .back").click()
    expect(page.locator(".exercise-item").first).to_be_visible()
    each_size(survey, "exercise list")
    page.locator('.exercise-item[data-id="matmul-backward"]').click()
    expect(page.locator(".statement p").first).to_be_visible()
    page.locator(".exercise-actions button.primary").click()
    expect(page.get_by_test_id("report-local").locator(".verdict")).to_have_attribute(
        "data-verdict", re.compile(".+"), timeout=60_000)
    page.locator(".hints button.hint-next").click()
    each_size(survey, "exercise")
    page.screenshot(path=screenshots / f"exercise-{survey.variant}.png")


def test_every_view_has_no_serious_accessibility_violations(page: Page, variant, screenshots):
    survey = Survey(page, variant)
    each_size(survey, "start")
    survey_outputs(survey)
    survey_learn(survey)
    survey_exercises(survey, screenshots)
    print("\n" + survey.table())
    assert len(survey.rows) == 2 * (1 + 2 + len(OUTPUT_TABS) + 1 + 2 + 2)
    assert not survey.problems, "\n".join(survey.problems)
