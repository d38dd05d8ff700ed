"""The untrusted side of a trace diff: run ONE public test case with a recorder installed and
send back the steps as plain data (standard library + kael; runs in the same kind of child
process as ``child.py``, whose channel and encoder it imports from the task directory).

    python -I -B tracechild.py --sys-path DIR ... job.json

``job.json``: ``{"submission", "module", "case", "mode"}``. ``mode`` is what is recorded:

* ``engine``: the learner's ``backward(root, gradient)``; each ``node.apply(grad)`` it makes
  (node, incoming gradient, the gradient sent along each edge) and each leaf ``.grad`` it sets.
* ``counts``: ``count_dependencies(root)``'s counts replayed through ADR 0005's process step
  (pop a ready node, decrement the count of each edge's node, push it at zero), and the order
  ``topological_order(root)`` returns.
* ``walk``: ``count_nodes(fn)`` and ``depth(fn)`` (the deep-chain exercise) asked again of
  every node below the ``fn`` the test passed, children before parents (post-order, at most
  ``MAX_STEPS`` nodes: the first ones and ``fn`` itself): each step is a node, its children with
  the values the learner's functions gave them, and the values for the node.

``record()`` does one case in the current process and undoes what it installed: ``main()`` (the
judge's child) and the browser's in-process run (``inprocess.py``) both use it.

Nodes are named as kael.viz names them (``MulBackward #2``, ``AccumulateGrad(x)``), from the
graph of the root as it is when the learner's function is called.
"""

import json
import os
import sys

MAX_STEPS = 200
MAX_VALUES = 8


def _values(t):
    if t is None:
        return None
    try:
        flat = t.detach().reshape(-1).tolist()
    except Exception:  # noqa: BLE001 (a learner's object that is not a tensor)
        return repr(t)[:80]
    out = [round(v, 6) if isinstance(v, float) else v for v in flat[:MAX_VALUES]]
    return {"shape": list(t.shape), "values": out, "more": max(0, len(flat) - MAX_VALUES)}


class Recorder:
    def __init__(self, kael, test_module):
        self.kael = kael
        self.test_globals = test_module.__dict__
        self.labels = {}  # node -> label
        self.leaf_labels = {}  # id(tensor) -> label of its AccumulateGrad
        self.steps = []

    def _names(self):
        """Tensors named in the public test's frames (x, w, ...), for leaf labels."""
        names = {}
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_globals is self.test_globals:
                for k, v in frame.f_locals.items():
                    if isinstance(v, self.kael.Tensor) and k not in names:
                        names[k] = v
            frame = frame.f_back
        return names

    def start(self, root_node):
        from kael.viz.walk import build

        if root_node is None or root_node in self.labels:
            return
        names = self._names()
        built = build([None], [root_node], names)
        by_id = {n["id"]: n["label"] for n in built.data["nodes"]}
        leaf_names = {id(t): k for k, t in names.items()}
        for node, nid in built.ids.items():
            label = by_id[nid]
            variable = getattr(node, "variable", None)
            if variable is not None:
                if "(" not in label and id(variable) in leaf_names:
                    label = f"{label}({leaf_names[id(variable)]})"
                self.leaf_labels.setdefault(id(variable), label)
            self.labels.setdefault(node, label)

    def label(self, node):
        if node is None:
            return None
        return self.labels.get(node) or node.name()

    def add(self, step):
        if len(self.steps) < MAX_STEPS:
            self.steps.append(step)


def _patch(obj, name, value, undo):
    """Set ``obj.name`` and remember how to put the old value back."""
    old = obj.__dict__.get(name, _MISSING) if isinstance(obj, type) else getattr(obj, name, _MISSING)
    setattr(obj, name, value)
    undo.append((obj, name, old))


_MISSING = object()


def _install_engine(kael, rec, module, undo):
    from kael.autograd.node import FunctionNode

    original_apply = FunctionNode.apply

    def apply(node, grad):
        out = original_apply(node, grad)
        grads = out if isinstance(out, tuple) else (out,)
        sends = [{"to": rec.label(ni.edge), "grad": _values(g)}
                 for ni, g in zip(node.inputs, grads) if ni.edge is not None]
        rec.add({"node": rec.label(node), "grad": _values(grad), "sends": sends})
        return out

    _patch(FunctionNode, "apply", apply, undo)
    prop = kael.Tensor.grad

    def set_grad(t, value):
        prop.fset(t, value)
        label = rec.leaf_labels.get(id(t))
        if label is not None:
            rec.add({"node": label, "grad": _values(value), "sends": [], "leaf": True})

    _patch(kael.Tensor, "grad", property(prop.fget, set_grad), undo)
    backward = getattr(module, "backward", None)
    if callable(backward):
        def traced_backward(root, *args, **kwargs):
            rec.start(getattr(root, "grad_fn", None))
            return backward(root, *args, **kwargs)

        _patch(module, "backward", traced_backward, undo)
    return None


def _install_counts(kael, rec, module, undo):
    count = getattr(module, "count_dependencies", None)
    order = getattr(module, "topological_order", None)
    inside = []  # a count made inside topological_order is part of the order, not replayed

    if callable(count):
        def traced_count(root, *args, **kwargs):
            rec.start(root)
            deps = count(root, *args, **kwargs)
            if not inside:
                _replay(rec, root, deps)
            return deps

        _patch(module, "count_dependencies", traced_count, undo)
    if callable(order):
        def traced_order(root, *args, **kwargs):
            rec.start(root)
            inside.append(True)
            try:
                result = order(root, *args, **kwargs)
            finally:
                inside.pop()
            for i, node in enumerate(list(result)[:MAX_STEPS] if isinstance(result, (list, tuple)) else []):
                rec.add({"node": rec.label(node) if hasattr(node, "inputs") else repr(node)[:60],
                         "order": i + 1})
            return result

        _patch(module, "topological_order", traced_order, undo)
    return None


def _replay(rec, root, deps):
    """ADR 0005's process step driven by these counts (a copy): what each pop does."""
    if not isinstance(deps, dict):
        return
    counts = dict(deps)
    ready = [root]
    seen = 0
    while ready and seen < MAX_STEPS:
        node = ready.pop()
        seen += 1
        sends = []
        for ni in getattr(node, "inputs", ()):
            edge = ni.edge
            if edge is None:
                continue
            before = counts.get(edge)
            after = before - 1 if isinstance(before, int) else None
            counts[edge] = after
            if after == 0:
                ready.append(edge)
            sends.append({"to": rec.label(edge), "count": [before, after]})
        rec.add({"node": rec.label(node), "count": deps.get(node) if isinstance(deps.get(node), int) else None,
                 "sends": sends, "ready": [rec.label(n) for n in ready]})


WALKED = ("count_nodes", "depth")


def _install_walk(kael, rec, module, undo):
    """Remember the ``fn`` the test first asks ``count_nodes``/``depth`` of (each wrapper puts the
    learner's function back at its first call, so a recursive walk recurses through its own
    code only); once the test is over, ask them again of every node below (``_replay_walk``)."""
    calls = {}  # root node -> names of the functions asked of it, in order

    def wrap(name, fn):
        def traced(root, *args, **kwargs):
            setattr(module, name, fn)
            rec.start(root)
            calls.setdefault(root, []).append(name)
            return fn(root, *args, **kwargs)

        return traced

    functions = {}
    for name in WALKED:
        fn = getattr(module, name, None)
        if callable(fn):
            functions[name] = fn
            _patch(module, name, wrap(name, fn), undo)
    return lambda: _replay_walk(rec, calls, functions)


def _children(node):
    try:
        return [c for c, _ in node.next_functions if c is not None]
    except Exception:  # noqa: BLE001 (not a node)
        return []


def _post_order(root) -> list:
    """Every node below ``root``, children before parents (explicit stack, each node once)."""
    order, done, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node in done:
            continue
        if expanded:
            done.add(node)
            order.append(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(_children(node)) if c not in done)
    return order


def _answer(fn, node):
    """What the learner's function gives for ``node``: plain scalar data, or what it raised."""
    try:
        value = fn(node)
    except Exception as exc:  # noqa: BLE001 (RecursionError on a deep chain is the point)
        return f"{type(exc).__name__}: {_child()._safe_str(exc)[:120]}"
    return value if value is None or type(value) in (int, float, bool, str) else repr(value)[:60]


def _replay_walk(rec, calls, functions):
    for root, names in calls.items():
        nodes = _post_order(root)
        total = len(nodes)
        if total > MAX_STEPS:  # the first nodes and the root: where a deep walk breaks
            nodes = nodes[:MAX_STEPS - 1] + [root]
        answers = {}
        for i, node in enumerate(nodes):
            if len(rec.steps) >= MAX_STEPS:
                return
            got = answers[node] = {name: _answer(functions[name], node) for name in names}
            children = [{"node": rec.label(c), **answers.get(c, {})} for c in _children(node)]
            position = total if node is root else i + 1
            rec.add({"node": rec.label(node), "order": position, "of": total, "children": children, **got})


MODES = {"engine": _install_engine, "counts": _install_counts, "walk": _install_walk}


def _child():
    """``child.py``: the harness package's (in process) or the task directory's copy (``main``)."""
    try:
        from . import child
    except ImportError:
        import child
    return child


def record(kael, tests_module, module, case, mode):
    """Run public case ``case`` of ``tests_module`` on the submission ``module`` with mode's
    recorder; ``(steps, error)`` as plain data. Whatever was installed is undone afterwards."""
    child = _child()
    rec = Recorder(kael, tests_module)
    undo = []
    error = None
    try:
        finish = MODES[mode](kael, rec, module, undo)
        try:
            getattr(tests_module, case)(module)
        except KeyboardInterrupt:  # the browser's Stop
            raise
        except BaseException as exc:  # noqa: BLE001 (the learner's code may raise anything)
            error = {"type": type(exc).__name__, "message": child._safe_str(exc)[:300]}
    finally:
        for obj, name, old in reversed(undo):
            if old is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, old)
    if finish is not None:  # after the undo: the replay runs the learner's own functions
        finish()
    try:
        steps = child.plain(rec.steps)
    except child.NotPlainData as exc:
        steps, error = [], {"type": "NotPlainData", "message": str(exc)}
    return steps, error


def main(argv):
    nonce = sys.stdin.readline().strip()
    task_dir = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, task_dir)
    import child  # the task directory's copy: the channel, the encoder, the loader

    channel = child._Channel(nonce)
    paths, rest, i = [], [], 0
    while i < len(argv):
        if argv[i] == "--sys-path":
            paths.append(argv[i + 1])
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    for p in reversed(paths):
        sys.path.insert(0, p)
    with open(os.path.join(task_dir, rest[0]), encoding="utf-8") as f:
        job = json.load(f)
    import kael

    import kael.viz.walk  # noqa: F401  (the recorder's labels; loaded before the rules hold)

    channel.send(event="ready", backend=kael.backend_name())
    tests = child._load(os.path.join(task_dir, "public_test.py"), "public_test")
    if job.get("rules"):  # the exercise's rules (rules.py), as in the graded run
        child._load(os.path.join(task_dir, "judge_rules.py"), "judge_rules").enforce(job["rules"])
    try:
        module = child._load(os.path.join(task_dir, job["submission"]), job["module"])
    except BaseException as exc:  # noqa: BLE001
        channel.send(event="load_error", **child._outcome(exc, task_dir))
        os._exit(0)
    try:
        steps, error = record(kael, tests, module, job["case"], job["mode"])
    except BaseException as exc:  # noqa: BLE001 (SystemExit, KeyboardInterrupt from the learner)
        steps, error = [], {"type": type(exc).__name__, "message": child._safe_str(exc)[:300]}
    channel.send(event="trace", steps=steps, error=error)
    channel.send(event="done")
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
