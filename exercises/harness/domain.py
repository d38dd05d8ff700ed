"""Declared domains: seeded cases over everything a statement allows, observed for the oracle.

Runs in the judge's child (copied into the task directory as ``judge_domain.py``; standard
library and kael only) and in the tests (``harness.domain``). A hidden test file declares, per
function the learner writes, a case generator; the child runs it against the submission and the
reference's child against the reference, on the same seeds, and ``harness/oracle.py`` compares
the two records in the trusted parent::

    from judge_domain import Domain

    DOMAIN = Domain("sum-to")

    @DOMAIN.case("sum_to", cases=300, classes=("rank 0", "size 0", "layout expanded", ...))
    def sum_to_case(d, m):
        g = d.tensor(d.shape(), dtype=d.dtype())      # labels rank, sizes, dtype, layout, values
        d.call("sum_to", m.sum_to, g, d.reduced_shape(g.shape))

    def test_domain_sum_to(m):
        \"\"\"sum_to(g, shape) on 300 generated cases\"\"\"
        return DOMAIN.run(m, "sum_to")

A case function draws its inputs from ``d`` (a ``Draw``: one ``random.Random`` seeded from the
judge version, the exercise, the generator and the case number) and makes its calls through
``d.call`` (one step: the result or the exception, then the side effects on the tensors it was
given and the grad mode) or ``d.function_steps`` (a ``Function`` forward, backward through the
engine and backward called directly with a ctx the test built). Every draw labels the case with
the classes it falls in (``rank 0``, ``size 0``, ``layout transposed``, ``values nan``, ...);
``Domain.classes(name, module)`` counts them so a test can check that each declared class is
produced. ``Domain.run`` returns plain data ``{"kind": KIND, ...}``: compare.py hands a value of
that kind to the oracle.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import traceback
import warnings

import kael

__all__ = ["Domain", "Draw", "GRAPH_OPS", "JUDGE_VERSION", "KIND", "node_numbers", "observe", "seed_of"]

JUDGE_VERSION = "2026.12-1"  # a new version draws new cases: verdicts stay reproducible within one
KIND = "kael-domain/1"
MAX_TRACEBACKS = 3  # per run: enough to name the error, small enough for the output cap
MAX_MESSAGE = 300  # an exception message kept per step (hundreds of steps stay under the cap)
MIXES = ("ordinary", "zeros", "huge", "tiny", "nonfinite", "ties", "near ties")
LAYOUTS = ("contiguous", "transposed", "stepped", "expanded")
FLOATS = ("float32", "float64")
_TASK_DIR = os.path.dirname(os.path.abspath(__file__))


def seed_of(exercise: str, name: str, index: int, version: str = JUDGE_VERSION) -> int:
    """The seed of case ``index`` of generator ``name``: fixed per judge version."""
    digest = hashlib.sha256(f"{version}\0{exercise}\0{name}\0{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Draw:
    """One case's random choices, the classes they fall in, and the steps observed."""

    def __init__(self, seed: int, tracebacks=None):
        self.random = random.Random(seed)
        self.labels: list = []
        self.inputs: list = []
        self.steps: list = []
        # tracebacks kept so far in this run of the generator (shared by its cases: a solution
        # that raises in every case sends MAX_TRACEBACKS, not one per case past the output cap)
        self.tracebacks = tracebacks if tracebacks is not None else [0]

    # -- choices -------------------------------------------------------------------------------
    def label(self, *names) -> None:
        for n in names:
            if n not in self.labels:
                self.labels.append(n)

    def choice(self, options, label=None):
        value = options[self.random.randrange(len(options))]
        if label is not None:
            self.label(f"{label} {value}")
        return value

    def integer(self, lo: int, hi: int) -> int:
        return self.random.randint(lo, hi)

    def chance(self, p: float) -> bool:
        return self.random.random() < p

    def dtype(self, allowed=FLOATS):
        """A dtype name from ``allowed``, labelled ``dtype <name>``; returns the kael dtype."""
        return getattr(kael, self.choice(tuple(allowed), "dtype"))

    def size(self, n_max: int = 3) -> int:
        """0, 1 or n (2..n_max), labelled ``size 0`` / ``size 1`` / ``size n``."""
        kind = self.choice(("0", "1", "n", "n", "n"))
        self.label(f"size {kind}")
        return {"0": 0, "1": 1}[kind] if kind in ("0", "1") else self.integer(2, n_max)

    def shape(self, rank=None, max_rank: int = 4, n_max: int = 3, empty: bool = True,
              max_numel: int = 24) -> tuple:
        """A shape of ``rank`` (drawn from 0..max_rank when None), labelled ``rank r``; sizes 0
        only when ``empty``; at most ``max_numel`` elements (the largest sizes shrink, never to
        1, so the record stays small and every size class stays in)."""
        r = self.integer(0, max_rank) if rank is None else rank
        self.label(f"rank {r}")
        sizes = []
        for _ in range(r):
            s = self.size(n_max)
            while s == 0 and not empty:
                s = self.size(n_max)
            sizes.append(s)
        while math.prod(sizes) > max_numel:
            i = max(range(len(sizes)), key=lambda k: sizes[k])
            sizes[i] -= 1
        return tuple(sizes)

    def broadcast_pair(self, max_rank: int = 4, n_max: int = 3, empty: bool = True):
        """Two shapes that broadcast together: each operand may be the one stretched, both may,
        or neither; ranks may differ. Labelled ``broadcast left|right|both|none``, ``ranks
        differ``."""
        out = self.shape(max_rank=max_rank, n_max=n_max, empty=empty)
        a, b = list(out), list(out)
        for i in range(len(out)):
            which = self.choice(("keep", "keep", "a", "b"))
            if which == "a":
                a[i] = 1
            elif which == "b":
                b[i] = 1
        drop_a, drop_b = self.integer(0, len(a)) if self.chance(0.3) else 0, 0
        if not drop_a and self.chance(0.3):
            drop_b = self.integer(0, len(b))
        a, b = tuple(a[drop_a:]), tuple(b[drop_b:])
        if drop_a or drop_b:
            self.label("ranks differ")
        stretched_a = len(a) < len(out) or any(x == 1 and y != 1 for x, y in zip(a[::-1], out[::-1]))
        stretched_b = len(b) < len(out) or any(x == 1 and y != 1 for x, y in zip(b[::-1], out[::-1]))
        self.label("broadcast " + {(True, True): "both", (True, False): "left",
                                   (False, True): "right", (False, False): "none"}[(stretched_a, stretched_b)])
        return a, b

    def values(self, n: int, mix=None, positive=False) -> list:
        """``n`` values of a mix from ``MIXES`` (labelled ``values <mix>``). Ordinary values are
        multiples of 1/8 and huge and tiny ones multiples of 2**100 and 2**-100, so sums are exact
        in any order (a correct solution never differs from the reference by rounding).
        ``positive``: all > 0 (no zeros, no -inf, no nan)."""
        mix = mix or self.choice(MIXES)
        self.label(f"values {mix}")
        r = self.random
        out = []
        for _ in range(n):
            k = r.randint(1, 40) * (1 if positive else r.choice((-1, 1)))
            if mix == "zeros" and not positive and r.random() < 0.6:
                v = r.choice((0.0, -0.0))
            elif mix == "huge":
                v = k * 2.0 ** 100
            elif mix == "tiny":
                v = k * 2.0 ** -100
            elif mix == "nonfinite" and r.random() < 0.4:
                v = math.inf if positive else r.choice((math.inf, -math.inf, math.nan))
            elif mix == "ties":
                v = r.choice((1.5, -0.5, 2.0)) if not positive else r.choice((1.5, 0.5))
            elif mix == "near ties":
                base = r.choice((1.5, 0.25))
                v = r.choice((base, math.nextafter(base, 2.0), math.nextafter(base, 0.0)))
            else:
                v = k / 8.0
            out.append(v)
        return out

    def tensor(self, shape, dtype=None, mix=None, layout=None, requires_grad=False, positive=False):
        """A tensor of ``shape`` and ``dtype`` (drawn when None) in a layout from ``LAYOUTS``
        (labelled ``layout <name>``): contiguous, a transposed view, a stepped slice, or an
        expanded view (stride 0 in a dimension of size > 1, when the shape has one)."""
        dtype = dtype or self.dtype()
        shape = tuple(shape)
        layout = layout or self.choice(LAYOUTS)
        if layout == "expanded" and not any(s > 1 for s in shape):
            layout = "contiguous"
        if layout == "transposed" and len(shape) < 2:
            layout = "stepped"
        if layout == "stepped" and not shape:
            layout = "contiguous"
        if not dtype.is_floating_point and mix not in ("ordinary", "zeros", "ties"):
            mix = self.choice(("ordinary", "zeros", "ties"))  # no huge, tiny, nan or inf in ints
        self.label(f"layout {layout}")
        t = _laid_out(self, shape, dtype, mix, layout, positive)
        if requires_grad:
            t.requires_grad_(True)
        self.inputs.append(describe(t))
        return t

    def like(self, t, mix=None, layout=None, positive=False):
        """A tensor of ``t``'s shape and dtype (an upstream gradient, a second operand)."""
        return self.tensor(tuple(t.shape), t.dtype, mix=mix, layout=layout, positive=positive)

    def graph(self, max_ops: int = 30):
        """``(root, leaves)``: a random backward graph. 1-4 float64 leaves of shape [2] that
        require grad, 0-2 constants, 1..max_ops operations each on earlier values (fan-out,
        diamonds, an input used twice, constant operands, views, expand, sum), a sum of a few of
        the values, summed to the 0-d ``root``. Labelled ``op <name>``, ``constant operands``,
        ``more than 20 operations``."""
        leaves = [kael.tensor(self.values(2, "ordinary"), dtype=kael.float64, requires_grad=True)
                  for _ in range(self.integer(1, 4))]
        constants = [kael.tensor(self.values(2, "ordinary"), dtype=kael.float64)
                     for _ in range(self.integer(0, 2))]
        if constants:
            self.label("constant operands")
        values = list(leaves)
        for _ in range(self.integer(1, max_ops)):
            op = self.choice(GRAPH_OPS, "op")
            values.append(_graph_op(op, self.choice(values), self.choice(values + constants)))
        if len(values) - len(leaves) > 20:
            self.label("more than 20 operations")
        picked = [self.choice(values) for _ in range(self.integer(1, 3))]
        root = picked[0]
        for v in picked[1:]:
            root = root + v
        return root.sum(), leaves

    # -- observed calls --------------------------------------------------------------------------
    def call(self, what: str, fn, *args, watch=None, scale=None, watch_names=None, **kwargs):
        """Call ``fn``; record one step (its result or its exception, then the side effects on
        ``watch``, by default every tensor among the arguments, and the grad mode). Returns the
        result (None if it raised). ``scale``: the magnitude the result's values are compared
        at (``Draw.magnitude`` of the inputs, for a result whose rounding error grows with the
        inputs' size rather than its own, such as a loss of logits near 2**100).
        ``watch_names``: what a message calls each watched tensor (None: its position)."""
        watch = list(args) + list(kwargs.values()) if watch is None else list(watch)
        watch = [a for a in watch if isinstance(a, kael.Tensor)]
        before = [_snapshot(t) for t in watch]
        step = {"call": what}
        if watch_names is not None:
            step["watched"] = list(watch_names)
        if scale is not None:
            step["scale"] = float(scale)
        result = None
        try:
            result = fn(*args, **kwargs)
            step["result"] = observe(result)
        except Exception as exc:  # noqa: BLE001 - the learner's exception is an observation
            step["raised"] = self._raised(exc)
        step["effects"] = _effects(watch, before)
        self.steps.append(step)
        return result

    @staticmethod
    def magnitude(*tensors) -> float:
        """The largest finite ``|value|`` among ``tensors`` (0.0 when there is none)."""
        return max([0.0] + [abs(v) for t in tensors if isinstance(t, kael.Tensor)
                            for v in _flat(t) if math.isfinite(v)])

    def note(self, what: str, value) -> None:
        """Record an observation that is not a call (a counter, a global's value)."""
        self.steps.append({"call": what, "result": observe(value)})

    def _raised(self, exc) -> dict:
        try:
            message = str(exc)[:MAX_MESSAGE]
        except Exception:  # noqa: BLE001 - a hostile __str__
            message = "<unprintable exception>"
        out = {"type": _type_name(type(exc)), "message": message}
        if self.tracebacks[0] < MAX_TRACEBACKS:
            self.tracebacks[0] += 1
            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            out["traceback"] = text.replace(_TASK_DIR + os.sep, "")[-1500:]
        return out

    def function_steps(self, what: str, cls, inputs, grad_outputs=None, direct=True, scale=None):
        """A ``Function``'s forward through ``cls.apply``, its backward through the engine (with
        ``grad_outputs``, drawn like the output when None), and, with ``direct``, its forward and
        backward called directly with a ctx this test built. Each is one step; the inputs'
        ``.grad`` after the engine's backward are in its effects. ``scale``: the forward's, as
        for ``call``."""
        out = self.call(f"{what}.apply", cls.apply, *inputs, scale=scale)
        if isinstance(out, kael.Tensor) and out.requires_grad:
            g = grad_outputs if grad_outputs is not None else self.like(out, mix="ordinary")
            # the incoming gradient is watched too: a backward that changes it in place corrupts
            # every other branch the engine hands the same tensor to (an add's two inputs)
            self.call(f"{what} backward (engine)", out.backward, g, watch=_tensors(inputs) + _tensors([g]),
                      watch_names=_names(inputs, g))
        if direct:
            g = grad_outputs
            if g is None and isinstance(out, kael.Tensor):
                g = self.like(out, mix="ordinary")  # the draw _direct would make, made here to watch it
            self.call(f"{what} backward (direct, test's ctx)", _direct, self, cls, inputs, g,
                      watch=_tensors(inputs) + _tensors([g]), watch_names=_names(inputs, g))
        return out


    def sequence(self, what: str, cls, input_sets):
        """Several forwards of ``cls`` (one per set of inputs, of different shapes) before any
        backward, then their backwards through the engine in the other order: a Function that
        keeps state on the class or in its module instead of in ``ctx`` gives the later forward's
        state to the earlier backward. Labelled ``forwards before backwards``."""
        self.label("forwards before backwards")
        outs = [self.call(f"{what}.apply #{k + 1}", cls.apply, *xs) for k, xs in enumerate(input_sets)]
        for k in range(len(outs) - 1, -1, -1):
            if isinstance(outs[k], kael.Tensor) and outs[k].requires_grad:
                g = self.like(outs[k], mix="ordinary")
                self.call(f"{what} #{k + 1} backward (engine)", outs[k].backward, g, watch=input_sets[k])
        return outs


GRAPH_OPS = ("add", "mul", "sub", "same input twice", "exp", "tanh", "neg", "square", "view",
             "expand", "sum")


def _graph_op(op, x, y):
    """One operation of ``Draw.graph`` on values of shape [2] (``y`` only for the binary ones)."""
    table = {
        "add": lambda: x + y, "mul": lambda: x * y, "sub": lambda: x - y,
        "same input twice": lambda: x * x, "exp": lambda: x.exp(), "tanh": lambda: x.tanh(),
        "neg": lambda: -x, "square": lambda: x ** 2, "view": lambda: x.reshape(2, 1).reshape(2),
        "expand": lambda: x.sum().expand(2), "sum": lambda: x.sum() * 1.0 + x * 0.0,
    }
    return table[op]()


def node_numbers(root) -> dict:
    """``{node: number}`` for every node reachable from ``root`` (a ``grad_fn``): its place in a
    breadth-first walk, the test's own name for it (a learner's nodes are seen by identity)."""
    names, queue = {root: 0}, [root]
    for node in queue:
        for ni in node.inputs:
            if ni.edge is not None and ni.edge not in names:
                names[ni.edge] = len(names)
                queue.append(ni.edge)
    return names


class _Ctx:
    """The ctx a test builds to call ``forward`` and ``backward`` directly (as PyTorch's
    ``FunctionCtx`` does): saving keeps the tensors, attributes are plain."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self._saved = ()

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def mark_non_differentiable(self, *tensors):
        pass

    @property
    def saved_tensors(self):
        return self._saved


def _direct(d, cls, inputs, g):
    """forward(ctx, *inputs) then backward(ctx, g) with a ctx built here; grad mode off, as the
    engine runs them. The gradients as a tuple: a lone tensor is one gradient, as for the engine."""
    ctx = _Ctx(tuple(isinstance(x, kael.Tensor) and x.requires_grad for x in inputs))
    with kael.no_grad():
        detached = [x.detach() if isinstance(x, kael.Tensor) else x for x in inputs]
        out = cls.forward(ctx, *detached)
        if g is None:
            g = d.like(out, mix="ordinary")
        grads = cls.backward(ctx, g)
    return grads if isinstance(grads, tuple) else (grads,)  # as the engine reads a backward


def _laid_out(d, shape, dtype, mix, layout, positive):
    """A tensor of ``shape`` whose memory is laid out as ``layout`` says."""
    n = math.prod(shape)
    if not dtype.is_floating_point:
        def values(count, mix, positive):
            return [int(v * 8) if dtype is not kael.bool else v > 0
                    for v in d.values(count, mix, positive)]
    else:
        values = d.values
    if layout == "transposed":
        base_shape = shape[:-2] + (shape[-1], shape[-2])
        base = kael.tensor(values(n, mix, positive), dtype=dtype).reshape(base_shape)
        return base.transpose(-1, -2)
    if layout == "stepped":
        wide = shape[:-1] + (2 * shape[-1],)
        base = kael.tensor(values(math.prod(wide), mix, positive), dtype=dtype).reshape(wide)
        return base[..., ::2]
    if layout == "expanded":
        dims = [i for i, s in enumerate(shape) if s > 1]
        i = d.choice(dims)
        small = shape[:i] + (1,) + shape[i + 1:]
        base = kael.tensor(values(math.prod(small), mix, positive), dtype=dtype).reshape(small)
        return base.expand(*shape)
    return kael.tensor(values(n, mix, positive), dtype=dtype).reshape(shape)


def _type_name(t) -> str:
    module = getattr(t, "__module__", "?")
    return t.__qualname__ if module == "builtins" else f"{module}.{t.__qualname__}"


def observe(value):
    """Plain data that keeps everything a caller can see of ``value``, compactly: a tensor is
    ``["Tensor", dtype, shape, requires_grad, grad_fn's class name or None, flat values]``; a
    number, str, bool or None ``[type name, value]``; a tuple, list or dict ``[type name, items]``
    (a dict's items as ``[key, value]`` pairs); anything else ``[qualified type name]``. So a
    tuple is not a list and an int not a float."""
    if isinstance(value, kael.Tensor):
        fn = value.grad_fn
        return ["Tensor", value.dtype.name, list(value.shape), bool(value.requires_grad),
                None if fn is None else type(fn).__name__, _flat(value)]
    t = type(value)
    if value is None or t in (bool, int, float, str):
        return [t.__name__, value]
    if t in (list, tuple):
        return [t.__name__, [observe(v) for v in value]]
    if t is dict:
        return ["dict", [[observe(k), observe(v)] for k, v in value.items()]]
    if t is kael.Size:
        return ["Size", list(value)]
    return [_type_name(t)]


def _flat(t):
    with kael.no_grad():
        values = t.detach().contiguous().reshape(-1).tolist()
    return [v for v in values]


def _tensors(values) -> list:
    """The tensors among a Function's inputs (a dim, a size or an eps is not watched)."""
    return [v for v in values if isinstance(v, kael.Tensor)]


def _names(inputs, g) -> list:
    """What messages call a Function's watched tensors: its inputs by position among the
    tensors, then the gradient its backward was given."""
    names = [f"tensor input {i + 1}" for i in range(len(_tensors(inputs)))]
    return names + ["the gradient given to backward (grad_output)"] * len(_tensors([g]))


def _snapshot(t):
    return _flat(t), t.grad


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x == y or (x != x and y != y) for x, y in zip(a, b))


def _effects(watched, before) -> list:
    """What a call changed, compactly: ``[changed, requires_grad, grads, grad_enabled]`` (or
    only ``grad_enabled`` when no tensor is watched):
    the indices of the watched tensors whose values changed, each one's requires_grad after,
    ``{index: observe(.grad)}`` for those that have or had a ``.grad``, and the grad mode."""
    if not watched:
        return bool(kael.is_grad_enabled())  # nothing else to see: the grad mode alone
    changed, flags, grads = [], [], {}
    for i, (t, (values, grad)) in enumerate(zip(watched, before)):
        if not _same(values, _flat(t)):
            changed.append(i)
        flags.append(bool(t.requires_grad))
        if t.grad is not None or grad is not None:
            grads[str(i)] = None if t.grad is None else observe(t.grad)
    return [changed, flags, grads, bool(kael.is_grad_enabled())]


def describe(value) -> str:
    """A short rendering of an input for a public case's message."""
    if isinstance(value, kael.Tensor):
        layout = "" if value.is_contiguous() else f" strides {list(value.stride())}"
        text = repr(_flat(value))
        if len(text) > 72:
            text = text[:67] + " ...]"
        return f"{value.dtype.name}{list(value.shape)}{layout} {text}"
    return repr(value)[:120]


class Domain:
    """The declared domain of an exercise: its case generators, by name."""

    def __init__(self, exercise: str):
        self.exercise = exercise
        self.generators: dict = {}

    def case(self, name: str, *, cases: int, classes=()):
        """Register ``fn(d, m)`` as generator ``name`` of ``cases`` cases that must, over them,
        produce every class in ``classes``."""
        def register(fn):
            self.generators[name] = (fn, int(cases), tuple(classes))
            return fn
        return register

    def draws(self, name: str, module):
        """Each case's ``Draw`` after running generator ``name`` against ``module``."""
        fn, n, _ = self.generators[name]
        tracebacks = [0]
        for i in range(n):
            d = Draw(seed_of(self.exercise, name, i), tracebacks)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # inf - inf in numpy: the value says it
                    fn(d, module)
            finally:
                if not kael.is_grad_enabled():
                    kael.set_grad_enabled(True)  # a case that leaves grad mode off: seen, then reset
            yield d

    def run(self, module, name: str, grad_fn: bool = True, **tolerance) -> dict:
        """Plain data for the oracle: every case's classes, input and steps. ``tolerance``:
        ``float32=(rtol, atol)``, ``float64=(rtol, atol)`` to override the oracle's defaults.
        ``grad_fn=False``: a result's grad_fn is compared as present or not, not by its class
        (for a function built from kael ops, whose last op the statement leaves open)."""
        records = [{"classes": d.labels, "input": d.inputs, "steps": d.steps}
                   for d in self.draws(name, module)]
        out = {"kind": KIND, "name": name, "version": JUDGE_VERSION, "cases": records,
               "tolerance": {k: list(v) for k, v in tolerance.items()}}
        if not grad_fn:
            out["grad_fn"] = "presence"
        return out

    def classes(self, name: str, module) -> dict:
        """``{class: number of cases}`` over generator ``name`` (for the test that each declared
        class is produced)."""
        counts: dict = {}
        for d in self.draws(name, module):
            for label in d.labels:
                counts[label] = counts.get(label, 0) + 1
        return counts
