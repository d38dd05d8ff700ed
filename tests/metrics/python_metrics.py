"""Code-health figures for the Python side: functions longer than a limit, and import cycles
between the project's modules (imports inside functions counted, as they still tie modules).

    .venv/bin/python tests/metrics/python_metrics.py [--limit 60]

Prints every long function with its length, then every cycle (a strongly connected group of
modules), then the totals. A figure, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# package root -> the folder its top-level name lives in
PACKAGES = {"kael": ROOT, "server": ROOT, "harness": ROOT / "exercises"}
SKIP = {"__pycache__", ".venv", "node_modules", "dist", ".cache"}


def python_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if not SKIP & set(p.relative_to(ROOT).parts))


def long_functions(tree: ast.AST, limit: int):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                yield node.name, node.lineno, length


def module_name(path: Path) -> str | None:
    for top, base in PACKAGES.items():
        try:
            rel = path.relative_to(base / top)
        except ValueError:
            continue
        parts = [top, *rel.with_suffix("").parts]
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


def imported(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The project modules `name` imports, anywhere in the file."""
    out = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # `from pkg import sub` needs pkg.sub (pkg itself is already importing); a name
            # that is not a module needs pkg's __init__.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]; counter[0] += 1; stack.append(start); on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = []
                    while True:
                        x = stack.pop(); on.discard(x); group.append(x)
                        if x == v:
                            break
                    if len(group) > 1:
                        out.append(sorted(group))
            elif w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(graph.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=60)
    limit = parser.parse_args().limit
    files = python_files()
    trees = {p: ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in files}
    total = longs = 0
    for path, tree in trees.items():
        for name, line, length in long_functions(tree, limit):
            longs += 1
            print(f"long: {path.relative_to(ROOT)}:{line} {name} {length} lines")
        total += sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(tree))
    names = {p: module_name(p) for p in files}
    known = {n for n in names.values() if n}
    graph = {n: imported(trees[p], n, p.name == "__init__.py", known) for p, n in names.items() if n}
    found = cycles(graph)
    for group in found:
        print(f"cycle ({len(group)} modules): {' '.join(group)}")
    print(f"python: {longs} of {total} functions over {limit} lines; {len(found)} import cycles "
          f"among {len(known)} modules of {', '.join(PACKAGES)}")


if __name__ == "__main__":
    sys.exit(main())
