"""Statements, starters and rules agree (issue 21 item 6).

* Every function an exercise's rules switch off is named, as code, in the statement in both
  languages: a learner is told what the judge refuses before the judge refuses it.
* Every kael helper the English statement or the starter offers (a backticked ``kael.x.y`` or a
  tensor method ``g.sum(...)``, outside a sentence that says it is off limits) still works under
  the exercise's rules: in a child with the rules applied (harness/rules.py), its code is the
  one kael shipped, not the refusing body a switched-off function gets.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from exercise_support import EXERCISES, ROOT

from harness import catalog

RULED = [e for e in catalog.load_all() if (e.config.get("rules") or {}).get("switch_off")]
SPAN = re.compile(r"`([^`\n]+)`")
KAEL_NAME = re.compile(r"\bkael(?:\.[A-Za-z_]\w*)+")
METHOD = re.compile(r"^[a-z_]\w*\.([a-z_]\w*)\(")
REFUSING = ("switched off", "off limits", "cannot", "never", "not ", "no `", "instead of", "rather than")


@pytest.mark.parametrize("exercise", [e.id for e in RULED])
def test_every_switched_off_function_is_named_in_both_languages(exercise):
    e = catalog.find(exercise)
    for lang in catalog.LANGS:
        statement = e.statement(lang)
        missing = [i for i in e.config["rules"]["switch_off"] if f"`{i}`" not in statement]
        assert not missing, f"{exercise} ({lang}): the rules switch off {missing}, the statement never names them"


def offered_helpers(exercise) -> list:
    """Dotted names (``kael.autograd.grad``, ``kael.Tensor.sum``) the English statement and the
    starter offer, skipping sentences that say a thing is switched off or not to be used."""
    text = exercise.statement("en") + "\n" + exercise.starter()
    names = set()
    for sentence in re.split(r"(?<=[.;:])\s+|\n\n", text):
        if any(word in sentence for word in REFUSING):
            continue
        for span in SPAN.findall(sentence):
            names.update(KAEL_NAME.findall(span))
            method = METHOD.match(span)
            if method and not span.startswith(("kael.", "ctx.", "m.")):
                names.add(f"kael.Tensor.{method.group(1)}")
    return sorted(names)


PROBE = r"""
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import importlib, kael, rules

def resolve(name):
    parts = name.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[: i + 1]))
    return obj

names = json.loads(sys.argv[3])
codes = {}
for n in names:
    fn = resolve(n)
    fn = getattr(fn, "__func__", fn)
    codes[n] = getattr(fn, "__code__", None)
rules.enforce(json.loads(sys.argv[4]))
changed = [n for n in names if codes[n] is not None
           and getattr(getattr(resolve(n), "__func__", resolve(n)), "__code__", None) is not codes[n]]
print(json.dumps(changed))
"""


@pytest.mark.parametrize("exercise", [e.id for e in RULED])
def test_every_helper_the_statement_offers_works_under_the_rules(exercise):
    e = catalog.find(exercise)
    names = offered_helpers(e)
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT), str(EXERCISES / "harness"), json.dumps(names),
         json.dumps(e.config["rules"])],
        capture_output=True, text=True, timeout=120, check=True)
    switched = json.loads(out.stdout.strip().splitlines()[-1])
    assert not switched, f"{exercise}: the statement or starter offers {switched}, which the rules switch off"


def test_the_probe_sees_a_switched_off_helper():
    """The check above can fail: kael.ops.sum_to under sum-to's rules is reported."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT), str(EXERCISES / "harness"), json.dumps(["kael.ops.sum_to"]),
         json.dumps(catalog.find("sum-to").config["rules"])],
        capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["kael.ops.sum_to"]
