"""Trace diff for the engine exercises: run the learner's code and the reference on the first
failing **public** case with a recorder (``tracechild.py``, in a child process like every
submission run) and show the first step where the two runs diverge.

Which exercises and what is recorded (see ``tracechild.py``):

* ``backward-engine``: every ``node.apply(grad)`` the engine makes (node, incoming gradient,
  the gradient sent along each edge) and every leaf ``.grad`` it sets;
* ``dependency-count``: the learner's counts replayed through ADR 0005's process step (node
  popped, each edge's count before and after, the ready stack), and the order it returns;
* ``deep-chain``: the learner's ``count_nodes``/``depth`` asked of every node below the root the
  test walks, children before parents (node, its children's values, the node's values), so the
  first step that differs is the lowest node where a walk goes wrong.

Only public cases are traced: nothing from a hidden test reaches the report. The result goes in
the report's ``trace_diff``: ``{"case", "mode", "step", "agree", "yours", "reference",
"yours_steps", "reference_steps", "yours_error", "reference_error"}`` (``step`` is 1-based, the
first step that differs, or ``None`` when the traces agree); the whole traces are kept (capped)
for the browser's side-by-side view.
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import shutil
import tempfile
import threading
from pathlib import Path

from .child import MARK
from .report import display_width
from .tracechild import WALKED

__all__ = ["TRACED", "trace_diff", "diff", "first_divergence", "format_trace_diff", "reference_traces",
           "stored_reference_traces", "traces_key"]

TRACED = {"backward-engine": "engine", "dependency-count": "counts", "deep-chain": "walk"}
HERE = Path(__file__).resolve().parent
RTOL, ATOL = 1e-4, 1e-6

_cache: dict = {}
_cache_lock = threading.Lock()


def _run_trace(exercise, code, case, mode, runner, limits, env) -> dict:
    """``{"steps", "error"}`` from one trace child, or ``{"steps": [], "error": {...}}`` when it
    did not report (crash, time limit, import error)."""
    make_dir = getattr(runner, "make_task_dir", None)
    task_dir = Path(make_dir()) if make_dir else Path(tempfile.mkdtemp(prefix="kael-trace-"))
    try:
        for script in ("child.py", "tracechild.py"):
            shutil.copyfile(HERE / script, task_dir / script)
        rules = exercise.config.get("rules") or {}
        if rules:  # the exercise's rules hold in the traced run too, as in the graded one
            shutil.copyfile(HERE / "rules.py", task_dir / "judge_rules.py")
        (task_dir / exercise.solution_file).write_text(code, encoding="utf-8")
        (task_dir / "public_test.py").write_text(exercise.public_tests_source(), encoding="utf-8")
        job = {"submission": exercise.solution_file, "module": exercise.module_name, "case": case, "mode": mode,
               "rules": rules}
        (task_dir / "job.json").write_text(json.dumps(job), encoding="utf-8")
        seal = getattr(runner, "seal_task_dir", None)
        if seal is not None:
            seal(task_dir)
        nonce = secrets.token_hex(16)
        result = runner.run(task_dir, ["tracechild.py", "job.json"], limits, stdin=(nonce + "\n").encode(), env=env)
    finally:
        shutil.rmtree(task_dir, ignore_errors=True)
    prefix = (MARK + nonce + " ").encode()
    for line in result.stdout.split(b"\n"):
        if line.startswith(prefix):
            try:
                frame = json.loads(line[len(prefix):].decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue
            if type(frame) is dict and frame.get("event") == "trace" and type(frame.get("steps")) is list:
                return {"steps": frame["steps"], "error": frame.get("error")}
            if type(frame) is dict and frame.get("event") == "load_error":
                raised = frame.get("raised") if type(frame.get("raised")) is dict else {"type": "MemoryError"}
                return {"steps": [], "error": {"type": str(raised.get("type")),
                                               "message": f"(importing your code) {raised.get('message', '')}"[:300]}}
    how = "the time limit" if result.timed_out else f"signal {result.signal}" if result.signal else f"exit status {result.exit_code}"
    return {"steps": [], "error": {"type": "stopped", "message": f"the traced run stopped ({how})"}}


def _reference_trace(exercise, case, mode, runner, limits, env) -> dict:
    digest = hashlib.sha256()
    for part in (exercise.reference_source(), exercise.public_tests_source(), case, mode,
                 json.dumps(sorted(env.items()))):
        digest.update(part.encode())
        digest.update(b"\0")
    key = (exercise.id, digest.hexdigest())
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    trace = _run_trace(exercise, exercise.reference_source(), case, mode, runner, limits, env)
    with _cache_lock:
        _cache[key] = trace
    return trace


def _close(a, b) -> bool:
    if type(a) in (int, float) and type(b) in (int, float) and not isinstance(a, bool) and not isinstance(b, bool):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= ATOL + RTOL * abs(b)
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return set(a) == set(b) and all(_close(a[k], b[k]) for k in a)
    return a == b


def first_divergence(yours: list, reference: list):
    """The 0-based index of the first step that differs, or ``None`` when the traces agree."""
    for i, (a, b) in enumerate(zip(yours, reference)):
        if not _close(a, b):
            return i
    if len(yours) != len(reference):
        return min(len(yours), len(reference))
    return None


def trace_diff(exercise, code, tests, *, runner, env, limits):
    """The report's ``trace_diff`` for a graded run whose ``tests`` did not all pass, or
    ``None`` (an exercise without traces, or every public case passed). Never raises."""
    mode = TRACED.get(exercise.id)
    if mode is None:
        return None
    failing = next((t["name"] for t in tests if not t["hidden"] and t["status"] != "passed"), None)
    if failing is None:
        return None
    try:
        mine = _run_trace(exercise, code, failing, mode, runner, limits, env)
        ref = _reference_trace(exercise, failing, mode, runner, limits, env)
    except Exception:  # noqa: BLE001 (a trace is an aid: it must never break a grading)
        return None
    return diff(failing, mode, mine, ref)


def diff(case, mode, mine: dict, ref: dict) -> dict:
    """The ``trace_diff`` of two traces (``{"steps", "error"}``) of public case ``case``."""
    at = first_divergence(mine["steps"], ref["steps"])
    return {
        "case": case,
        "mode": mode,
        "step": None if at is None else at + 1,
        "agree": len(mine["steps"]) if at is None else at,
        "yours": mine["steps"][at] if at is not None and at < len(mine["steps"]) else None,
        "reference": ref["steps"][at] if at is not None and at < len(ref["steps"]) else None,
        "yours_steps": mine["steps"],
        "reference_steps": ref["steps"],
        "yours_error": mine["error"],
        "reference_error": ref["error"],
    }


# -- the reference's traces of the public cases, stored for the browser ---------------------------

TRACES_FILE = "public_traces.json"


def traces_key(exercise) -> str:
    """What the stored traces depend on: the reference, the public tests, the recorder, the mode."""
    digest = hashlib.sha256()
    for part in (exercise.reference_source(), exercise.public_tests_source(),
                 (HERE / "tracechild.py").read_text(encoding="utf-8"), TRACED[exercise.id],
                 json.dumps(exercise.config.get("rules"), sort_keys=True)):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def reference_traces(exercise, *, runner=None, env=None, force=False):
    """``{"key", "traces": {case: {"steps", "error"}}}``: the reference's trace of every public
    case (``None`` for an exercise without traces); the stored one when current, unless ``force``."""
    from .childrun import child_env  # not imported in the browser (no subprocesses)
    from .runner import LocalRunner

    mode = TRACED.get(exercise.id)
    if mode is None:
        return None
    key = traces_key(exercise)
    path = exercise.path / ".meta" / TRACES_FILE
    if not force and path.is_file():
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("key") == key:
            return stored
    runner = runner or LocalRunner()
    env = child_env(env)
    limits = exercise.limits()
    traces = {c.name: _run_trace(exercise, exercise.reference_source(), c.name, mode, runner, limits, env)
              for c in exercise.public_cases()}
    return {"key": key, "traces": traces}


def stored_reference_traces(exercise):
    """The stored traces by case when they are current, else ``None``."""
    if exercise.id not in TRACED:
        return None
    path = exercise.path / ".meta" / TRACES_FILE
    if not path.is_file():
        return None
    stored = json.loads(path.read_text(encoding="utf-8"))
    return stored["traces"] if stored.get("key") == traces_key(exercise) else None


# -- text ---------------------------------------------------------------------------------------

_T = {
    "en": {"title": "Trace of {case} (public), your code against the reference:",
           "agree": "  steps 1-{n} agree",
           "same": "  the traces agree step by step (the difference is in what the test checks afterwards)",
           "differs": "  step {n} differs:", "yours": "yours", "reference": "reference",
           "missing": "(no such step)", "raised": "  your run raised {error}",
           "ref_raised": "  the reference raised {error}",
           "node": "node", "grad": "gradient in", "sends": "sends", "count": "count", "ready": "ready stack",
           "order": "position", "leaf": "leaf .grad", "child": "child"},
    "zh": {"title": "{case}（公开测试）的追踪，你的代码对照参考实现：",
           "agree": "  第 1-{n} 步一致",
           "same": "  两次追踪逐步一致（差别在测试之后检查的内容里）",
           "differs": "  第 {n} 步不同：", "yours": "你的", "reference": "参考",
           "missing": "（没有这一步）", "raised": "  你的运行抛出了 {error}",
           "ref_raised": "  参考实现抛出了 {error}",
           "node": "节点", "grad": "传入的梯度", "sends": "发出", "count": "计数", "ready": "就绪栈",
           "order": "位置", "leaf": "叶子 .grad", "child": "子节点"},
}


def _values(v) -> str:
    if v is None:
        return "None"
    if type(v) is dict and "values" in v:
        nums = ", ".join(f"{x:.4g}" if type(x) is float else str(x) for x in v["values"])
        more = f", … (+{v['more']})" if v.get("more") else ""
        return f"[{nums}{more}] shape {v.get('shape')}"
    return str(v)


def _fields(step, t) -> dict:
    """``{key: (field, text)}`` of one step, in display order."""
    if step is None:
        return {}
    rows = {"node": (t["node"], str(step.get("node")))}
    if "order" in step:
        rows["order"] = (t["order"], str(step["order"]) + (f" / {step['of']}" if "of" in step else ""))
    for i, c in enumerate(step.get("children", [])):
        answers = ", ".join(f"{name} {c[name]}" for name in WALKED if name in c)
        rows[f"child{i}"] = (t["child"], f"{c.get('node')}" + (f": {answers}" if answers else ""))
    for name in WALKED:
        if name in step:
            rows[name] = (f"{name}()", str(step[name]))
    if "grad" in step:
        rows["grad"] = (t["leaf"] if step.get("leaf") else t["grad"], _values(step["grad"]))
    if "count" in step:
        rows["count"] = (t["count"], str(step["count"]))
    for i, s in enumerate(step.get("sends", [])):
        detail = _values(s["grad"]) if "grad" in s else f"{s['count'][0]} -> {s['count'][1]}"
        rows[f"send{i}"] = (t["sends"], f"-> {s['to']}: {detail}")
    if "ready" in step:
        rows["ready"] = (t["ready"], "[" + ", ".join(str(r) for r in step["ready"]) + "]")
    return rows


def _pad(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def _table(yours: dict, ref: dict, t) -> list:
    keys = list(yours) + [k for k in ref if k not in yours]
    labels = {k: (yours.get(k) or ref.get(k))[0] for k in keys}
    width = max([display_width(v) for v in labels.values()] + [4])
    col = max([display_width(v[1]) for v in yours.values()] + [display_width(t["missing"]), display_width(t["yours"])])
    lines = [f"    {_pad('', width)}  {_pad(t['yours'], col)}  {t['reference']}"]
    for k in keys:
        a = yours[k][1] if k in yours else ("" if yours else t["missing"])
        b = ref[k][1] if k in ref else ("" if ref else t["missing"])
        lines.append(f"    {_pad(labels[k], width)}  {_pad(a, col)}  {b}".rstrip())
    return lines


def format_trace_diff(d: dict, lang: str = "en") -> str:
    t = _T.get(lang, _T["en"])
    lines = [t["title"].format(case=d["case"])]
    if d["step"] is None:
        lines.append(t["same"])
    else:
        if d["agree"]:
            agreed = [str(step.get("node")) for step in d["reference_steps"][:d["agree"]]]
            shown = ", ".join(agreed[-6:])
            lines.append(t["agree"].format(n=d["agree"]) + ": " + ("…, " if len(agreed) > 6 else "") + shown)
        lines.append(t["differs"].format(n=d["step"]))
        lines.extend(_table(_fields(d["yours"], t), _fields(d["reference"], t), t))
    for key, text in (("yours_error", "raised"), ("reference_error", "ref_raised")):
        e = d.get(key)
        if e:
            lines.append(t[text].format(error=f"{e['type']}: {e['message']}"))
    return "\n".join(lines)
