"""Known-mistake messages: every mutant that has a message is recognised as its own mistake when
graded (through the same grade() as judge.py, on the session's graded reports), references and
starters match none, messages are bilingual and name no hidden test, the stored signatures are
current, and the text report shows the message in the chosen language."""

from __future__ import annotations

import json
import re

import pytest
from exercise_support import EXERCISES  # noqa: F401  (puts the harness on sys.path)

from harness import catalog, mistakes
from harness.report import format_text

WITH_MESSAGES = [e for e in catalog.load_all() if mistakes.messages(e)]
NEW = [e for e in catalog.load_all() if e.number >= 17]


def _mutant_rows():
    rows = []
    for e in WITH_MESSAGES:
        for name in mistakes.messages(e):
            rows.append(pytest.param(e.id, name, id=f"{e.id}:{name}"))
    return rows


@pytest.mark.parametrize("exercise,name", _mutant_rows())
def test_each_mutant_is_recognised_as_its_own_mistake(graded, exercise, name):
    report = graded[(exercise, name)]
    found = [m["mutant"] for m in report["mistakes"]]
    assert name in found, f"{exercise}:{name} graded as {report['verdict']} matched {found}"
    assert len(found) <= 2, f"{exercise}:{name} is ambiguous: {found}"


@pytest.mark.parametrize("exercise", [e.id for e in WITH_MESSAGES])
def test_reference_and_starter_match_no_mistake(graded, exercise):
    assert graded[(exercise, "reference")]["mistakes"] == []
    assert graded[(exercise, "starter")]["mistakes"] == []


@pytest.mark.parametrize("exercise", [e.id for e in catalog.load_all()])
def test_every_hand_written_mutant_has_a_message_in_both_languages(exercise):
    """Every .meta/mutants/*.diff (the late ones included) tells the learner its mistake, in
    English and in Chinese."""
    e = catalog.find(exercise)
    texts = mistakes.messages(e)
    assert not sorted(set(e.mutants()) - set(texts)), "mutants without a message in .meta/mistakes.json"
    for name, text in texts.items():
        assert set(text) == {"en", "zh"} and all(t.strip() for t in text.values()), name
        assert any("\u4e00" <= ch <= "\u9fff" for ch in text["zh"]), f"{name}: zh is not Chinese"
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in text["en"]), f"{name}: en has Chinese"
        assert text["en"].count("`") % 2 == 0 and text["zh"].count("`") % 2 == 0, f"{name}: unbalanced `code`"


@pytest.mark.parametrize("exercise", [e.id for e in WITH_MESSAGES])
def test_messages_are_bilingual_and_name_no_hidden_test(exercise):
    e = catalog.find(exercise)
    hidden = {c.name for c in e.hidden_cases()}
    raw = json.loads((e.path / ".meta" / mistakes.MESSAGES_FILE).read_text(encoding="utf-8"))
    assert set(raw) <= set(e.mutants()), "a message for a mutant that does not exist"
    for name, text in mistakes.messages(e).items():
        assert set(text) == {"en", "zh"} and all(text.values()), name
        assert any("\u4e00" <= ch <= "\u9fff" for ch in text["zh"]), name
        for lang in ("en", "zh"):
            assert not any(h in text[lang] for h in hidden), f"{name} names a hidden test"
    assert "mistakes" not in json.dumps(e.public_dict(), ensure_ascii=False)


@pytest.mark.parametrize("exercise", [e.id for e in NEW])
def test_stored_signatures_are_current(exercise):
    """Stale signatures are recomputed while grading (correct, but slow the first time); the
    exercises 17-22 keep theirs current. Others: python exercises/judge.py mistakes --update."""
    e = catalog.find(exercise)
    stored = json.loads((e.path / ".meta" / mistakes.OUTCOMES_FILE).read_text(encoding="utf-8"))["mutants"]
    stale = [n for n in mistakes.messages(e) if stored.get(n, {}).get("key") != mistakes.signature_key(e, n)]
    assert not stale, f"run: python exercises/judge.py mistakes {exercise} --update  (stale: {stale})"


def _as_tests(e, failing):
    return [{"name": c.name, "status": "failed" if c.name in failing else "passed"} for c in e.cases()]


def test_a_mistake_is_matched_on_the_same_failing_tests_and_public_values():
    e = catalog.find("index-backward")
    sigs = mistakes.signatures(e)
    # overwriting and averaging fail every test: only their public values tell them apart
    for name, other in (("overwrites_repeats", "averages_repeats"), ("averages_repeats", "overwrites_repeats")):
        tests = _as_tests(e, sigs[name]["failing"])
        assert [m["mutant"] for m in mistakes.match(e, tests, dict(sigs[name]["public"]))] == [name]
        assert other not in [m["mutant"] for m in mistakes.match(e, tests, dict(sigs[name]["public"]))]
    sig = sigs["take_flat_gradient"]
    assert [m["mutant"] for m in mistakes.match(e, _as_tests(e, sig["failing"]), dict(sig["public"]))] == ["take_flat_gradient"]
    one_more = [c.name for c in e.cases() if c.name not in sig["failing"]][:1]
    assert mistakes.match(e, _as_tests(e, sig["failing"] + one_more), dict(sig["public"])) == []
    assert mistakes.match(e, _as_tests(e, []), {}) == []


def test_a_mistake_failing_the_same_domain_test_elsewhere_is_not_named():
    """Many mistakes fail a function's one domain test: a mutant is named only for a run that
    first differs from the reference at the same case and call (an outsider's Abs backward as
    ``x / |x|`` was told it made the ReLU mistake, which fails the same test elsewhere)."""
    known = [{"mutant": "relu_mask", "message": {"en": "relu", "zh": "relu"}, "failing": ["test_domain"],
              "public": {}, "first": {"test_domain": "case 3: Relu backward (engine)"}}]
    tests = [{"name": "test_domain", "status": "failed"}, {"name": "test_other", "status": "passed"}]
    elsewhere = {"test_domain": "case 21: Abs backward (engine)"}
    same = {"test_domain": "case 3: Relu backward (engine)"}
    assert mistakes._matching(known, tests, {}, {}, elsewhere) == []
    assert [m["mutant"] for m in mistakes._matching(known, tests, {}, {}, same)] == ["relu_mask"]
    assert [m["mutant"] for m in mistakes._matching(known, tests, {}, {}, None)] == ["relu_mask"]  # unknown: as before


@pytest.mark.parametrize("exercise", [e.id for e in WITH_MESSAGES])
def test_stored_signatures_say_where_a_domain_test_first_fails(exercise):
    """``judge.py mistakes --update --force`` after a change of the harness: a stored signature
    without ``first`` names a mistake on its failing tests alone."""
    e = catalog.find(exercise)
    stored = json.loads((e.path / ".meta" / mistakes.OUTCOMES_FILE).read_text(encoding="utf-8"))["mutants"]
    for name in mistakes.messages(e):
        first = stored[name].get("first")
        assert type(first) is dict, f"{name}: run python exercises/judge.py mistakes {exercise} --update --force"
        # a domain test that failed without a record (the program crashed or raised) has none
        assert set(first) <= set(stored[name]["failing"]), name
        assert all(re.fullmatch(r"case \d+: .+", where) for where in first.values()), (name, first)


def test_text_report_shows_the_message_in_the_chosen_language(graded):
    report = graded[("nonsmooth-reductions", "where_nan_trap")]
    en, zh = format_text(report), format_text(report, lang="zh")
    assert "This looks like a known mistake:" in en and "NaN" in en
    assert "这看起来是一个常见错误：" in zh and "梯度" in zh
    assert en.rstrip().splitlines()[-1].startswith("Wrong Answer")


def test_grading_without_known_mistakes_skips_matching():
    from harness.grade import grade

    e = catalog.find("hooks")
    source = e.mutants()["clip_always"]
    report = grade(e, source, known_mistakes=False)
    assert report["verdict"] == "Wrong Answer" and report["mistakes"] == []


def test_text_report_wraps_every_message_within_the_width_in_both_languages():
    """judge.py's text: each message in lines of at most 96 columns (a Chinese character takes
    two; a closing mark may hang past the edge rather than start a line), broken at spaces or
    between Chinese characters, and nothing lost."""
    from harness.report import _wrap, display_width

    for e in catalog.load_all():
        for name, text in mistakes.messages(e).items():
            for lang in ("en", "zh"):
                shown = text[lang].replace("**", "")  # as format_mistakes shows it
                lines = _wrap("  * ", shown)
                where = (e.id, name, lang)
                assert all(display_width(line.rstrip("，。：；、！？）")) <= 96 for line in lines), where
                assert all(line[4:5] not in "，。：；、！？）" for line in lines[1:]), where
                assert "".join(line[4:] for line in lines).replace(" ", "") == shown.replace(" ", ""), where
