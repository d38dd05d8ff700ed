"""Apply a unified diff to one text, with the standard library only.

Mutants (plausible wrong solutions) are stored as unified diffs against the exercise's reference
solution (``.meta/mutants/<name>.diff``), so each one shows exactly the mistake it makes and the
reference exists once. Every context and removed line must match, or ``PatchError`` says where.
"""

from __future__ import annotations

import re

__all__ = ["apply_patch", "PatchError"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(ValueError):
    pass


def apply_patch(source: str, diff: str) -> str:
    """``source`` with the hunks of ``diff`` (``difflib.unified_diff`` format) applied."""
    old = source.splitlines(keepends=True)
    out = []
    pos = 0  # next line of ``old`` not yet copied
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines) and not lines[i].startswith("@@"):
        i += 1  # the ---/+++ header
    if i == len(lines):
        raise PatchError("the diff has no hunk")
    while i < len(lines):
        m = _HUNK.match(lines[i])
        if m is None:
            raise PatchError(f"diff line {i + 1}: expected a hunk header, got {lines[i]!r}")
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        if start < pos:
            raise PatchError(f"diff line {i + 1}: hunks overlap or are out of order")
        out.extend(old[pos:start])
        pos = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            line = lines[i]
            tag, text = line[:1], line[1:]
            if tag == "\\":  # "\ No newline at end of file"
                if out and out[-1].endswith("\n"):
                    out[-1] = out[-1][:-1]
            elif tag in (" ", "-"):
                if pos >= len(old) or old[pos].rstrip("\n") != text.rstrip("\n"):
                    found = old[pos].rstrip("\n") if pos < len(old) else "<end of file>"
                    raise PatchError(f"diff line {i + 1}: expected {text.rstrip()!r} at line {pos + 1}, found {found!r}")
                if tag == " ":
                    out.append(old[pos])
                pos += 1
            elif tag == "+":
                out.append(text if text.endswith("\n") else text + "\n")
            else:
                raise PatchError(f"diff line {i + 1}: unexpected {line!r}")
            i += 1
    out.extend(old[pos:])
    return "".join(out)
