#!/usr/bin/env python3
"""The local judge for the kael exercises.

    python exercises/judge.py list
    python exercises/judge.py show ID [--lang zh]
    python exercises/judge.py start ID [PATH]
    python exercises/judge.py check ID FILE [--json] [--public-only] [--lang zh]
    python exercises/judge.py mistakes [ID ...] [--update [--force]]

ID is the exercise's id (graph-walk), folder (01-graph-walk) or number (1). ``check`` grades FILE
in a child process with the exercise's time and memory limits, public and hidden tests, and
prints a per-test report (or the JSON report with --json). Exit status: 0 when Accepted, 1 when
not, 2 on a usage error, 3 when the judge itself failed. Needs only the standard library and kael.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import catalog  # noqa: E402
from harness.report import ACCEPTED, format_text  # noqa: E402

EXIT_ACCEPTED, EXIT_NOT_ACCEPTED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def _colour(stream) -> bool:
    return stream.isatty() and os.environ.get("NO_COLOR") is None and os.environ.get("TERM") != "dumb"


def _find(wanted):
    try:
        return catalog.find(wanted)
    except catalog.UnknownExercise as exc:
        raise UsageError(f"{exc}\nrun 'judge.py list' to see every exercise") from None


def cmd_list(args):
    rows = [(e.id, e.title(args.lang), e.difficulty, ", ".join(e.topics)) for e in catalog.load_all()]
    if args.json:
        print(json.dumps([e.summary(args.lang) for e in catalog.load_all()], ensure_ascii=False, indent=2))
        return EXIT_ACCEPTED
    numbers = [e.number for e in catalog.load_all()]
    width = max((len(r[0]) for r in rows), default=2)
    for n, (ident, title, difficulty, topics) in zip(numbers, rows):
        print(f"{n:02d}  {ident.ljust(width)}  {difficulty.ljust(6)}  {title}")
        if topics:
            print(f"    {' ' * width}  {'':6}  {topics}")
    return EXIT_ACCEPTED


def cmd_show(args):
    e = _find(args.id)
    print(e.statement(args.lang).rstrip())
    if args.hints:
        print()
        print(e.hints(args.lang).rstrip())
    print()
    limits = f"time limit {e.time_limit_s:g} s of CPU, memory limit {e.memory_mb} MB"
    if args.lang == "zh":
        limits = f"时间限制 {e.time_limit_s:g} 秒（CPU 时间），内存限制 {e.memory_mb} MB"
    print(f"[{e.id} · {e.difficulty} · {limits}]")
    print(f"python exercises/judge.py start {e.id}  →  {e.solution_file}")
    return EXIT_ACCEPTED


def cmd_start(args):
    e = _find(args.id)
    path = Path(args.path) if args.path else Path(e.solution_file)
    if path.is_dir():
        path = path / e.solution_file
    if path.exists() and not args.force:
        raise UsageError(f"{path} already exists; pass --force to overwrite it")
    path.write_text(e.starter(), encoding="utf-8")
    print(f"wrote the starter of {e.id} to {path}")
    print(f"edit it, then run: python {Path(sys.argv[0]).as_posix()} check {e.id} {path}")
    return EXIT_ACCEPTED


def cmd_check(args):
    e = _find(args.id)
    path = Path(args.file)
    try:
        code = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    from harness.grade import HarnessError, grade

    try:
        report = grade(e, code, public_only=args.public_only)
    except HarnessError as exc:
        print(f"judge.py: the judge itself failed (not your code): {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception:  # a bug of the judge: say so (exit 3), never a bare traceback as a verdict
        import traceback

        print("judge.py: the judge itself failed (not your code); please report this:\n"
              + traceback.format_exc().rstrip(), file=sys.stderr)
        return EXIT_INTERNAL
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(format_text(report, colour=_colour(sys.stdout), lang=args.lang))
    return EXIT_ACCEPTED if report["verdict"] == ACCEPTED else EXIT_NOT_ACCEPTED


def cmd_mistakes(args):
    """List each exercise's known mistakes; with --update, recompute the mutants' signatures."""
    from harness import mistakes
    from harness.grade import HarnessError

    chosen = [_find(i) for i in args.ids] if args.ids else catalog.load_all()
    for e in chosen:
        texts = mistakes.messages(e)
        if not texts:
            continue
        try:
            sigs = mistakes.update(e, force=args.force) if args.update else mistakes.signatures(e)
        except HarnessError as exc:
            print(f"judge.py: the judge itself failed (not your code): {exc}", file=sys.stderr)
            return EXIT_INTERNAL
        print(f"{e.id}: {len(texts)} known mistakes of {len(e.mutants())} mutants")
        for name, text in texts.items():
            print(f"  {name} ({len(sigs[name]['failing'])} tests fail): {text[args.lang]}")
    return EXIT_ACCEPTED


def build_parser():
    parser = _Parser(prog="judge.py", description="List, read, start and check the kael exercises.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.required = True
    p = sub.add_parser("list", help="every exercise: id, difficulty, title, topics")
    p.add_argument("--lang", choices=catalog.LANGS, default="en")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("show", help="print an exercise's statement")
    p.add_argument("id")
    p.add_argument("--lang", choices=catalog.LANGS, default="en")
    p.add_argument("--hints", action="store_true", help="print the hints too")
    p.set_defaults(fn=cmd_show)
    p = sub.add_parser("start", help="write an exercise's starter file")
    p.add_argument("id")
    p.add_argument("path", nargs="?", help="file or folder to write (default: the starter's name, here)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(fn=cmd_start)
    p = sub.add_parser("check", help="grade a solution file")
    p.add_argument("id")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.add_argument("--public-only", action="store_true", help="run the public tests only")
    p.add_argument("--lang", choices=catalog.LANGS, default="en", help="language of the known-mistake messages")
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("mistakes", help="the known mistakes (mutants with a message) of exercises")
    p.add_argument("ids", nargs="*", help="exercises (default: all)")
    p.add_argument("--lang", choices=catalog.LANGS, default="en")
    p.add_argument("--update", action="store_true",
                   help="write .meta/mutant_outcomes.json (stale or missing signatures recomputed)")
    p.add_argument("--force", action="store_true", help="with --update: recompute every signature")
    p.set_defaults(fn=cmd_mistakes)
    return parser


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.fn(args)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `judge.py check ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_NOT_ACCEPTED


if __name__ == "__main__":
    sys.exit(main())
