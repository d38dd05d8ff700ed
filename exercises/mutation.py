#!/usr/bin/env python3
"""Mutation score of every exercise: how many automatically made wrong solutions the tests reject.

    python exercises/mutation.py [ID ...] [--sample N] [--workers W] [--survivors]

For each exercise, Cosmic Ray's mutation operators (``cosmic_ray.plugins``) make every single-point
mutant of ``.meta/reference.py`` (an operator swapped, a comparison flipped, a number changed, a
loop skipped, ...); each mutant is graded by the real harness (``harness.grade.grade``: its own
child process, compared with the reference's outcomes) and is *killed* when it is not Accepted.
A surviving mutant must be listed in ``.meta/equivalent_mutants.txt`` with the reason it behaves
exactly like the reference; any other survivor is a gap in the hidden tests.

Prints one line per exercise, ``NN-name: killed K of N, E equivalent``, then
``mutation score: K/M (P%)`` where M = N - E is the number of non-equivalent mutants. Exit status
0 when every non-equivalent mutant is killed, 1 otherwise, 2 on a usage error.

``.meta/equivalent_mutants.txt``: one mutant per line, five tab-separated fields: the operator,
the class or function it changes, the reference's changed lines and the mutant's (stripped,
joined with " / "), the reason. ``--survivors`` prints survivors in this form. Lines starting
with ``#`` are comments.
"""

from __future__ import annotations

import argparse
import difflib
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import catalog  # noqa: E402

# Cosmic Ray's operators that make plausible wrong solutions of tensor code. Left out: the
# bitwise and shift replacements of arithmetic (a TypeError on any tensor, killed by every test:
# they measure nothing), ordering comparisons swapped for `is` (the same), exception replacement
# (needs Cosmic Ray's own test runner), and the variable replacer/inserter (need arguments).
OPERATORS = (
    "core/ReplaceBinaryOperator_Add_Sub", "core/ReplaceBinaryOperator_Sub_Add",
    "core/ReplaceBinaryOperator_Add_Mul", "core/ReplaceBinaryOperator_Mul_Add",
    "core/ReplaceBinaryOperator_Mul_Div", "core/ReplaceBinaryOperator_Div_Mul",
    "core/ReplaceBinaryOperator_Sub_Mul", "core/ReplaceBinaryOperator_Pow_Mul",
    "core/ReplaceBinaryOperator_Div_FloorDiv", "core/ReplaceBinaryOperator_FloorDiv_Div",
    "core/ReplaceComparisonOperator_Eq_NotEq", "core/ReplaceComparisonOperator_NotEq_Eq",
    "core/ReplaceComparisonOperator_Lt_LtE", "core/ReplaceComparisonOperator_LtE_Lt",
    "core/ReplaceComparisonOperator_Gt_GtE", "core/ReplaceComparisonOperator_GtE_Gt",
    "core/ReplaceComparisonOperator_Lt_Gt", "core/ReplaceComparisonOperator_Gt_Lt",
    "core/ReplaceComparisonOperator_Is_IsNot", "core/ReplaceComparisonOperator_IsNot_Is",
    "core/ReplaceUnaryOperator_USub_UAdd", "core/ReplaceUnaryOperator_Delete_USub",
    "core/ReplaceUnaryOperator_Delete_Not", "core/AddNot",
    "core/ReplaceTrueWithFalse", "core/ReplaceFalseWithTrue",
    "core/ReplaceAndWithOr", "core/ReplaceOrWithAnd",
    "core/ReplaceBreakWithContinue", "core/ReplaceContinueWithBreak",
    "core/NumberReplacer", "core/RemoveDecorator", "core/ZeroIterationForLoop",
)

EQUIVALENTS_FILE = "equivalent_mutants.txt"


@dataclass(frozen=True)
class Mutant:
    operator: str
    occurrence: int
    source: str
    where: str   # the class or function it changes (Mul.forward)
    before: str  # the reference's changed lines, stripped
    after: str   # the mutant's lines, stripped

    @property
    def key(self) -> tuple:
        return (self.operator, self.where, self.before, self.after)

    def describe(self) -> str:
        return "\t".join(self.key)


def _changed_line(reference: str, source: str) -> tuple:
    """``(line number, reference's lines, mutant's lines)`` of the change: the changed lines,
    stripped, blank ones left out, joined with " / " (a removed decorator leaves ``""``)."""
    old, new = reference.splitlines(), source.splitlines()
    changes = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not changes:
        return 0, "", ""
    before = [line.strip() for _, i1, i2, _, _ in changes for line in old[i1:i2] if line.strip()]
    after = [line.strip() for _, _, _, j1, j2 in changes for line in new[j1:j2] if line.strip()]
    lines = [i for _, i1, i2, _, _ in changes for i in range(i1, i2) if old[i].strip()] or [changes[0][1]]
    return lines[0] + 1, " / ".join(before), " / ".join(after)


def _where(reference: str, line: int) -> str:
    """The qualified name of the innermost class or function around ``line`` (``Mul.forward``),
    or ``<module>``."""
    import ast

    best, stack = "<module>", [(catalog.parse_source(reference), "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                if start <= line <= child.end_lineno:
                    best = prefix + child.name
                    stack.append((child, best + "."))
    return best


def make_mutants(reference: str) -> list:
    """Every distinct single-point mutant of ``reference`` by the operators above (sources that
    differ from the reference only; duplicates made by two operators count once)."""
    from cosmic_ray import plugins
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code

    tree = get_ast(reference)
    seen = {reference}
    out = []
    for name in OPERATORS:
        operator = plugins.get_operator(name)()
        count = sum(len(list(operator.mutation_positions(node))) for node in ast_nodes(tree))
        for occurrence in range(count):
            source = mutate_code(reference, operator, occurrence)
            if source is None or source in seen:
                continue
            seen.add(source)
            line, before, after = _changed_line(reference, source)
            out.append(Mutant(name, occurrence, source, _where(reference, line), before, after))
    return out


def load_equivalents(exercise) -> dict:
    """``{(operator, where, before, after): reason}`` from the exercise's equivalent_mutants.txt."""
    path = exercise.path / ".meta" / EQUIVALENTS_FILE
    if not path.is_file():
        return {}
    out = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5 or not fields[4].strip():
            raise ValueError(f"{path}:{number}: expected operator, place, reference line, mutant line and "
                             "reason, separated by tabs")
        out[tuple(fields[:4])] = fields[4].strip()
    return out


@dataclass
class Score:
    exercise: str
    total: int
    killed: int
    equivalent: int
    survivors: list  # non-equivalent mutants that were Accepted
    stale: list      # listed equivalents that no mutant matches any more (the reference changed)
    mislisted: list = ()  # listed as equivalent, but the tests kill them: the list is wrong

    def line(self) -> str:
        return f"{self.exercise}: killed {self.killed} of {self.total}, {self.equivalent} equivalent"


def score_exercise(exercise, *, sample=None, workers=2, seed=0, grade=None, runner=None) -> Score:
    """Grade the mutants of one exercise (all, or a seeded sample of ``sample``) through
    ``runner`` (default: the local runner)."""
    if grade is None:
        from harness.grade import grade
    mutants = make_mutants(exercise.reference_source())
    equivalents = load_equivalents(exercise)
    if sample is not None and sample < len(mutants):
        mutants = random.Random(seed).sample(mutants, sample)
    with ThreadPoolExecutor(max(1, workers)) as pool:
        verdicts = list(pool.map(lambda mu: grade(exercise, mu.source, runner=runner, known_mistakes=False)["verdict"],
                                 mutants))
    killed = sum(1 for v in verdicts if v != "Accepted")
    accepted = [mu for mu, v in zip(mutants, verdicts) if v == "Accepted"]
    equivalent = [mu for mu in accepted if mu.key in equivalents]
    survivors = [mu for mu in accepted if mu.key not in equivalents]
    stale = [] if sample is not None else sorted(set(equivalents) - {mu.key for mu in mutants})
    mislisted = [mu for mu, v in zip(mutants, verdicts) if v != "Accepted" and mu.key in equivalents]
    return Score(exercise.dirname, len(mutants), killed, len(equivalent), survivors, stale, mislisted)


def total_line(scores) -> str:
    killed = sum(s.killed for s in scores)
    relevant = sum(s.total - s.equivalent for s in scores)
    percent = 100.0 * killed / relevant if relevant else 100.0
    return f"mutation score: {killed}/{relevant} ({percent:.1f}%)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="mutation.py", description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="exercises (default: all)")
    parser.add_argument("--sample", type=int, help="grade a seeded sample of N mutants per exercise")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--survivors", action="store_true", help="print each survivor's line for equivalent_mutants.txt")
    parser.add_argument("--kael", metavar="DIR", help="grade with the kael package found in DIR (a snapshot), "
                        "not the installed one")
    args = parser.parse_args(argv)
    from harness.runner import LocalRunner

    runner = LocalRunner(sys_path=(args.kael,)) if args.kael else None
    try:
        exercises = [catalog.find(i) for i in args.ids] if args.ids else catalog.load_all()
    except catalog.UnknownExercise as exc:
        print(exc, file=sys.stderr)
        return 2
    scores = []
    for exercise in exercises:
        score = score_exercise(exercise, sample=args.sample, workers=args.workers, seed=args.seed, runner=runner)
        scores.append(score)
        print(score.line(), flush=True)
        for mu in score.survivors:
            if args.survivors:  # ready to paste into equivalent_mutants.txt, with a reason
                print(f"{mu.describe()}\tREASON", flush=True)
            else:
                print(f"  survived ({mu.operator}, {mu.where}): {mu.before}  =>  {mu.after}", flush=True)
        for key in score.stale:
            print(f"  listed as equivalent but no longer made: {' | '.join(key)}", flush=True)
        for mu in score.mislisted:
            print(f"  listed as equivalent but killed: {' | '.join(mu.key)}", flush=True)
    print(total_line(scores))
    return 0 if all(not (s.survivors or s.stale or s.mislisted) for s in scores) else 1


if __name__ == "__main__":
    sys.exit(main())
