"""Both languages all the way down: every exercise's topic tags have a Chinese label, the page shows
them in the page's language and the language switch redraws them (list and exercise view); the
empty Trace and Memory tabs' hints draw their `inline code` as code, not as backticks, in both languages."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import REPO

TOPICS_ZH = REPO / "web" / "src" / "exercises" / "topics.zh.json"
CJK = re.compile(r"[\u3400-\u9fff]")
# A topic that is an API name stays itself in Chinese (grad_fn, no_grad, kael.nn, matmul).
API_NAME = re.compile(r"[A-Za-z_][\w.]*|[\w-]+(?:-[\w]+)+")


def exercise_configs() -> list[dict]:
    configs = [json.loads(p.read_text()) for p in sorted(REPO.glob("exercises/*/.meta/config.json"))]
    assert configs, "no exercise configs found"
    return configs


def test_every_topic_has_a_chinese_label_and_no_label_is_stale():
    table = json.loads(TOPICS_ZH.read_text())
    used = {topic for config in exercise_configs() for topic in config["topics"]}
    assert sorted(used - table.keys()) == [], f"topics without a Chinese label in {TOPICS_ZH.name}"
    assert sorted(table.keys() - used) == [], f"labels in {TOPICS_ZH.name} for topics no exercise has"
    for topic, label in table.items():
        assert label.strip(), topic
        # Kept in English only when it is a name in code; otherwise it is written in Chinese.
        assert CJK.search(label) or (label == topic and API_NAME.fullmatch(topic)), (topic, label)


def shown_topics(page: Page, exercise_id: str) -> str:
    return page.locator(f'.exercise-item[data-id="{exercise_id}"] .topics').inner_text()


def test_topic_tags_follow_the_language_switch(app: Page, screenshots):
    table = json.loads(TOPICS_ZH.read_text())
    configs = exercise_configs()
    app.get_by_role("tab", name="Exercises").click()
    expect(app.locator(".exercise-item").first).to_be_visible(timeout=60_000)
    for config in configs:
        assert shown_topics(app, config["id"]) == ", ".join(config["topics"])

    app.get_by_role("button", name="切换到中文").click()
    expect(app.get_by_role("tab", name="练习")).to_be_visible()
    for config in configs:
        assert shown_topics(app, config["id"]) == "、".join(table[t] for t in config["topics"])
    app.screenshot(path=screenshots / "zh-exercise-topics.png")

    # The exercise view's tags too, and back to English without a reload.
    first = configs[0]
    app.locator(f'.exercise-item[data-id="{first["id"]}"]').click()
    meta = app.locator("p.exercise-meta .topics")
    expect(meta).to_have_text("、".join(table[t] for t in first["topics"]))
    app.get_by_role("button", name="Switch to English").click()
    expect(meta).to_have_text(", ".join(first["topics"]))


@pytest.mark.parametrize("view, tabs, code", [
    ("trace", ("Trace", "反向追踪"), ["with kael.viz.trace() as tr:"]),
    ("memory", ("Memory", "内存"), ['with kael.viz.memory("plain") as mem:', "kael.viz.show(mem)"]),
])
def test_an_empty_tabs_hint_draws_its_code_as_code(app: Page, screenshots, view, tabs, code):
    hint = app.locator(f".{view}-view > .placeholder")
    for switch, tab in ((None, tabs[0]), ("切换到中文", tabs[1])):
        if switch:
            app.get_by_role("button", name=switch).click()
        app.get_by_role("tab", name=tab).click()
        expect(hint).to_be_visible()
        expect(hint.locator("code")).to_have_text(code)
        assert "`" not in hint.inner_text()
    hint.screenshot(path=screenshots / f"{view}-empty-hint-zh.png")


def test_hints_do_not_repeat_their_title_under_the_heading(app: Page):
    app.get_by_role("tab", name="Exercises").click()
    app.locator(".exercise-item").first.click()
    for switch, title in ((None, "Hints"), ("切换到中文", "提示")):
        if switch:
            app.get_by_role("button", name=switch).click()
        hints = app.locator("section.hints")
        expect(hints.locator("h3")).to_have_text(title)
        if hints.locator(".hint").count() == 0:
            hints.locator("button.hint-next").click()
        expect(hints.locator(".hint").first).to_be_visible()
        expect(hints.locator(".hint").get_by_role("heading", name=title, exact=True)).to_have_count(0)
