"""The mutation score tool (exercises/mutation.py, `make mutation`): mutants come from Cosmic Ray's
operators, the equivalent-mutant lists are well formed and current, and a small seeded sample of
mutants is killed (the full run takes minutes and is not part of the test lanes)."""

from __future__ import annotations

import pytest
from exercise_support import EXERCISES

pytest.importorskip("cosmic_ray")

import sys  # noqa: E402

sys.path.insert(0, str(EXERCISES))

import mutation  # noqa: E402

from harness import catalog  # noqa: E402

SOURCE = '''"""A module."""


class Pair:
    @staticmethod
    def total(a, b):
        if a > 0:
            return a + b
        return a - b
'''


def test_mutants_are_single_changes_named_by_place():
    mutants = mutation.make_mutants(SOURCE)
    keys = {m.key for m in mutants}
    assert ("core/ReplaceBinaryOperator_Add_Sub", "Pair.total", "return a + b", "return a - b") in keys
    assert ("core/ReplaceComparisonOperator_Gt_GtE", "Pair.total", "if a > 0:", "if a >= 0:") in keys
    assert ("core/RemoveDecorator", "Pair.total", "@staticmethod", "") in keys
    assert len({m.source for m in mutants}) == len(mutants) and SOURCE not in {m.source for m in mutants}


@pytest.mark.parametrize("exercise", [e.id for e in catalog.load_all()])
def test_equivalent_mutant_lists_are_well_formed_and_current(exercise):
    e = catalog.find(exercise)
    listed = mutation.load_equivalents(e)  # raises on a malformed line
    made = {m.key for m in mutation.make_mutants(e.reference_source())}
    assert not set(listed) - made, f"listed as equivalent but no longer made: {sorted(set(listed) - made)}"


def test_the_total_counts_only_non_equivalent_mutants():
    scores = [mutation.Score("01-a", 10, 8, 2, [], []), mutation.Score("02-b", 5, 4, 0, ["x"], [])]
    assert mutation.total_line(scores) == "mutation score: 12/13 (92.3%)"
    assert scores[0].line() == "01-a: killed 8 of 10, 2 equivalent"


@pytest.mark.parametrize("exercise", ["saved-tensor", "dependency-count", "softmax-cross-entropy"])
def test_a_seeded_sample_of_mutants_is_killed(exercise):
    score = mutation.score_exercise(catalog.find(exercise), sample=4, workers=2, seed=7)
    assert score.total == 4
    assert not score.survivors, [m.describe() for m in score.survivors]
