"""Copies of kael without what an exercise switches off, one per set of rules.

An exercise that asks the learner to write ``sum_to`` must not be passable with kael's own: the
audit hooks of ``harness/rules.py`` refuse it inside the run, but code in the same process can
walk around hooks. So the sandbox does not give such a run kael's tree at all. It mounts a copy
in which every switched-off function's body is a single ``raise RuntimeError(<the rules'
message>)``: that module's source is rewritten (``ast``), the copy is compiled from the
rewritten source, and no file of the copy, source or bytecode, holds the original body. The
rest of the sandbox's file system has no kael (the root holds only the interpreter and its
standard library), so nothing a run can open, map or read through ``/proc/self`` has it.

Copies are built on first use, from this server's private kael copy, under the same private
folder (``kael-<key>/kael``), read-only to the runs; the key is the sorted ids of
``switch_off`` and ``keep``. ``KaelTrees.for_rules`` is safe to call from several slots.
"""

from __future__ import annotations

import ast
import compileall
import hashlib
import json
import os
import runpy
import shutil
import threading
from pathlib import Path

from harness.rules import SWITCHED_OFF


class KaelTrees:
    """``for_rules(rules)``: the kael folder a run with ``rules`` mounts at ``/opt/kael/kael``."""

    def __init__(self, private: Path):
        self.private = Path(private)
        self._lock = threading.Lock()
        self._built: dict[str, Path] = {}

    def for_rules(self, rules) -> Path:
        ids = sorted(rules.get("switch_off") or ()) if type(rules) is dict else []
        if not ids:
            return self.private / "kael"
        keep = sorted(rules.get("keep") or ())
        key = hashlib.sha256(json.dumps([ids, keep]).encode()).hexdigest()[:16]
        with self._lock:
            if key not in self._built:
                source = self.private / "kael"
                self._built[key] = build(source, self.private / f"kael-{key}", targets(source, ids),
                                         targets(source, keep))
            return self._built[key]


def targets(source: Path, ids) -> list[str]:
    """``"module:qualname"`` of each id, as the kael folder ``source`` declares them (its
    ``switchable.py``, read without importing kael)."""
    table = runpy.run_path(str(source / "switchable.py"))
    return [table["target"](i) for i in ids]


def build(source: Path, dest: Path, switched_off, kept) -> Path:
    """A compiled copy of the kael folder ``source`` at ``dest/kael`` with the functions
    ``switched_off`` names (``"module:qualname"``, ``"module:*"``) stubbed, but ``kept``."""
    work = dest.with_name(dest.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    tree = work / "kael"
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for module, qualnames in _by_module(switched_off, kept).items():
        path = tree.joinpath(*module.split(".")[1:]).with_suffix(".py")
        path.write_text(stub_source(path.read_text(encoding="utf-8"), module, qualnames), encoding="utf-8")
    compileall.compile_dir(str(tree), quiet=2)
    for p in [work, tree, *tree.rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(work, dest)
    return dest / "kael"


def _by_module(switched_off, kept) -> dict[str, set]:
    """``{module: {qualname, ...} or {"*", "-kept", ...}}``."""
    out: dict[str, set] = {}
    for prefix, names in (("", switched_off), ("-", kept)):
        for name in names:
            module, _, qualname = name.partition(":")
            out.setdefault(module, set()).add(prefix + qualname)
    return out


def stub_source(source: str, module: str, qualnames: set) -> str:
    """``source`` with each function ``qualnames`` names given a body that only raises: by
    qualified name (``"Mul.backward"``), or ``"*"`` for every top-level function but the
    ``"-name"`` ones. Signatures and decorators stay (callers and ``staticmethod`` still work)."""
    tree = ast.parse(source)
    every = "*" in qualnames
    kept = {q[1:] for q in qualnames if q.startswith("-")}
    found = set()
    for qualname, node in _functions(tree):
        top_level = "." not in qualname
        if qualname in qualnames or (every and top_level and qualname not in kept):
            message = SWITCHED_OFF.format(f"{module}.{qualname}")
            node.body = [ast.Raise(exc=ast.Call(func=ast.Name("RuntimeError", ast.Load()),
                                                args=[ast.Constant(message)], keywords=[]))]
            found.add(qualname)
    missing = {q for q in qualnames if q != "*" and not q.startswith("-")} - found
    if missing:
        raise LookupError(f"{module}: no function {', '.join(sorted(missing))} to switch off "
                          "(kael/switchable.py names a function that moved)")
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _functions(tree):
    """``(qualname, node)`` of every function defined at the top level or in a top-level class."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{item.name}", item
