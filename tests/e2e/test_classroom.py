"""A class as its teacher and learners live it, in Chromium: the teacher signs in on the class
page and makes a class; three learners join it with its code, each in a browser of their own,
open the exercise from their class page and submit (a correct solution, a known mistake, a wrong
one no mutant names); the teacher's page shows the grid and the mistake map with exactly those
counts, and the CSV download holds the same rows. Desktop and phone screenshots."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys

from playwright.sync_api import Page, expect

from .conftest import REPO, PageWatch
from .test_a11y import axe_violations
from .test_playground import set_code

sys.path.insert(0, str(REPO / "exercises"))
from harness.patch import apply_patch  # noqa: E402

EXERCISE = "sum-to"
FOLDER = REPO / "exercises" / "03-sum-to"
MUTANT = "mean_not_sum"
VERDICTS = re.compile(r"^(Accepted|Wrong Answer|Runtime Error|Time Limit Exceeded|Memory Limit Exceeded|Syntax Error)$")
UNKNOWN_WRONG = '''import kael


def sum_to(g, shape):
    """Wrong in a way no hand-written mutant is: twice the gradient."""
    lead = g.ndim - len(shape)
    out = g.sum(tuple(range(lead))) if lead else g
    for i, n in enumerate(shape):
        if n == 1 and out.shape[i] != 1:
            out = out.sum(i, keepdim=True)
    return out * 2
'''


def teacher_credential(server) -> str:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("KAEL_")}, **server.env}
    out = subprocess.run([sys.executable, "-m", "server", "teacher", "create", "--name", "Ms Rivera"],
                         cwd=REPO, env=env, capture_output=True, text=True, check=True).stdout
    return out.strip().rsplit(" ", 1)[-1]


def learner_code() -> dict[str, str]:
    reference = (FOLDER / ".meta" / "reference.py").read_text()
    mutant = apply_patch(reference, (FOLDER / ".meta" / "mutants" / f"{MUTANT}.diff").read_text())
    return {"Ada": reference, "Ben": mutant, "Cy": UNKNOWN_WRONG}


def new_page(browser, browser_context_args, watches: list[PageWatch], **extra) -> Page:
    context = browser.new_context(**{**browser_context_args, **extra})
    page = context.new_page()
    watch = PageWatch()
    watch.attach(context, page)
    watches.append(watch)
    return page


def learner_joins_and_submits(page: Page, base_url: str, code: str, name: str, source: str) -> str:
    page.goto(f"{base_url}/join.html#code={code}")
    page.get_by_label("Your name (as your teacher will see it)").fill(name)
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("You joined Period 3")
    page.get_by_role("button", name=EXERCISE, exact=True).click()  # to the playground, exercise open
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    expect(page.locator(".cm-content")).to_contain_text("NotImplementedError", timeout=60_000)
    set_code(page, source)
    expect(page.locator(".editor-position")).to_have_attribute("data-line", str(source.count("\n") + 1))
    page.get_by_role("button", name="Submit", exact=True).click()
    verdict = page.get_by_test_id("report-server").locator(".verdict")
    expect(verdict).to_have_attribute("data-verdict", VERDICTS, timeout=180_000)
    return verdict.get_attribute("data-verdict")


def test_a_teacher_sees_what_three_learners_got_wrong(browser, browser_context_args, server, base_url,
                                                       screenshots, tmp_path):
    watches: list[PageWatch] = []
    teacher = new_page(browser, browser_context_args, watches)
    teacher.goto(base_url + "/teacher.html")
    teacher.get_by_label("Teacher credential").fill(teacher_credential(server))
    teacher.get_by_role("button", name="Sign in").click()
    teacher.get_by_label("Name", exact=True).fill("Period 3")
    teacher.locator(f'input[name="exercise"][value="{EXERCISE}"]').check()
    teacher.get_by_role("button", name="Create the class").click()
    code = teacher.get_by_test_id("join-code")
    expect(code).to_have_text(re.compile(r"^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$"))
    join_code = code.text_content()

    verdicts = {}
    for name, source in learner_code().items():
        page = new_page(browser, browser_context_args, watches)
        verdicts[name] = learner_joins_and_submits(page, base_url, join_code, name, source)
        page.context.close()
    assert verdicts["Ada"] == "Accepted" and "Accepted" not in (verdicts["Ben"], verdicts["Cy"]), verdicts

    teacher.reload()
    grid = teacher.locator("table.class-grid")
    expect(grid.locator("tbody tr")).to_have_count(3)
    for name, verdict in verdicts.items():
        row = grid.locator("tbody tr", has=teacher.get_by_role("button", name=name, exact=True))
        expect(row.locator(f'td[data-exercise="{EXERCISE}"] .cell-verdict')).to_have_text(verdict)
    mistakes = teacher.locator(".mistake-map")
    expect(mistakes.locator(f'li[data-mutant="{MUTANT}"] .count')).to_have_text("1 learner")
    expect(mistakes.locator('li[data-mutant="unknown"] .count')).to_have_text("1 learner")
    expect(mistakes.locator(".total")).to_contain_text("2 learners")
    teacher.screenshot(path=screenshots / "class-teacher-1440.png", full_page=True)
    teacher.set_viewport_size({"width": 1180, "height": 820})  # a landscape tablet
    teacher.screenshot(path=screenshots / "class-teacher-1180.png", full_page=True)
    teacher.set_viewport_size({"width": 1440, "height": 900})

    with teacher.expect_download() as download:
        teacher.get_by_role("button", name="Download the grid (CSV)").click()
    path = tmp_path / "grid.csv"
    download.value.save_as(path)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert {r["learner"]: r[f"{EXERCISE} verdict"] for r in rows} == verdicts

    teacher.get_by_role("button", name="Ben", exact=True).click()
    drill = teacher.locator(".class-drill")
    expect(drill).to_contain_text("Submissions of Ben")
    expect(drill.locator(".class-submission")).to_have_count(1)
    drill.locator(".class-submission summary").click()  # its code arrives when it is opened
    expect(drill.locator("pre.code")).to_contain_text("def sum_to")

    teacher.set_viewport_size({"width": 390, "height": 844})
    teacher.goto(base_url + "/teacher.html")  # the class list, then the class, on a phone
    teacher.get_by_role("link", name="Period 3").click()
    expect(teacher.locator("table.class-grid tbody tr")).to_have_count(3)
    assert teacher.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "page scrolls sideways"
    teacher.screenshot(path=screenshots / "class-teacher-390.png", full_page=True)

    teacher.set_viewport_size({"width": 1440, "height": 900})
    problems = []
    for lang in ("en", "zh"):
        for theme in ("light", "dark"):
            teacher.evaluate(f"localStorage.setItem('kael.lang', '{lang}'); localStorage.setItem('kael.theme', '{theme}')")
            teacher.reload()
            expect(teacher.locator("table.class-grid tbody tr")).to_have_count(3)
            problems += axe_violations(teacher, f"teacher {lang}-{theme}")
            teacher.goto(base_url + "/join.html")
            expect(teacher.locator("#join-code")).to_be_visible()
            problems += axe_violations(teacher, f"join {lang}-{theme}")
            teacher.go_back()
    expect(teacher.locator(".mistake-map li.total")).to_be_visible()
    teacher.screenshot(path=screenshots / "class-teacher-zh-dark.png", full_page=True)
    assert not problems, "\n".join(problems)
    for watch in watches:
        assert not watch.unexpected(), "\n".join(watch.unexpected())
