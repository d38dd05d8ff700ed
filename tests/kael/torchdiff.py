"""Differential testing of kael against PyTorch: seeded random programs, run in both.

A program is a list of Python statements over variables ``v0, v1, ...`` and the module ``lib``
(``kael`` in one run, ``torch`` in the other; ``F`` is ``lib.nn.functional``). It is generated
one statement at a time from the PyTorch side's actual state (shapes, dtypes, which tensors are
leaves), so the same seed always gives the same program. After every statement both runs are
compared: values, gradients, shapes, dtypes, ``requires_grad``, ``is_leaf``, and the type of
any error raised. The first difference ends the program and is classified by kind.

Kinds: ``value``, ``grad``, ``shape``, ``dtype``, ``requires_grad``, ``is_leaf``,
``error-type`` (both raised, different types), ``kael-only-error``, ``torch-only-error``; and
``deviation: <reason>`` for a kael-only error (or a value) that the README lists as deliberate,
``lenient: <reason>`` for a PyTorch error kael does not raise that the README lists as known.

Usage: ``python tests/kael/torchdiff.py N [--first-seed S] [--show K] [--list]`` prints a summary
by kind (``--list``: one line per differing seed; ``--seeds S1 S2 ...`` runs only those)
(``make fuzz N=20000``); ``tests/kael/test_torch_differential.py`` runs a few hundred in pytest.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
import time
import warnings
from collections import Counter

__all__ = ["generate_and_run", "run_many", "summarize", "unexplained", "DEVIATIONS", "LENIENCIES", "ERROR_LENIENCIES",
           "VALUE_DEVIATIONS"]

# kael-only errors that ADR 0005 decides (README: "Deliberate deviations from PyTorch").
DEVIATIONS = {
    "is not supported on a tensor with gradient history": "in-place on a tensor with history",
    "is not supported with a source that requires grad": "in-place with a source that requires grad",
    "Trying to backward through the graph a second time": "second backward refused without retain_graph",
    "expected m1 and m2 to have the same dtype": "matmul of two dtypes refused even when the result is empty",
}

# PyTorch errors kael does not raise (kael is more lenient), known and listed in the README,
# by backend ("any" for both).
LENIENCIES = {
    "python": {
        "view size is not compatible with input tensor's size and stride":
            "view of an elementwise result that PyTorch lays out like a permuted input",
    },
}

# PyTorch errors kael does not raise that depend on the statement: (test, reason);
# test(line, lines) says whether the statement's torch-only error is the listed one.
_DETACH = re.compile(r"^(v\d+)\.detach_\(\)$")


def _made_by(name, lines):
    """The last source line that assigned ``name``, or ''."""
    made = [ln.strip() for line in lines for ln in line.split("\n") if ln.strip().startswith(f"{name} = ")]
    return made[-1] if made else ""


def _detach_of_internal_view(line, lines, kns=None, tns=None, message=""):
    """PyTorch's composite ``matmul`` and ``linear`` return internal views in some cases: a 2-D
    (or batch-1 3-D) tensor that requires grad times a batch of matrices, when the result has a
    single row or column (``output.mT()`` of a folded ``mm``); ``nn.Linear`` with a bias on an
    input that is not 2-D (the ``addmm`` of the flattened input, viewed back). ``detach_()`` of
    such a result raises there; kael's results of these ops are no views."""
    m = _DETACH.match(line.strip().split("\n")[-1].strip())
    if m is None:
        return False
    made = _made_by(m.group(1), lines)
    if " @ " in made:
        return True
    call = re.match(r"v\d+ = (v\d+)\(v\d+\)$", made)
    return call is not None and "nn.Linear(" in _made_by(call.group(1), lines)


def _write_into_expanded(line, lines, kns=None, tns=None, message=""):
    """PyTorch's backward hands out some gradients expanded (``sum``'s gradient is ``expand``ed
    and passed through as it is), so an in-place write into such a gradient, or a view of it,
    raises there; kael's gradients are materialised."""
    m = re.match(r"(v\d+)(\.\w+_\(|\[)", line.strip().split("\n")[-1].strip())
    if m is None or tns is None or m.group(1) not in tns:
        return False
    t = tns[m.group(1)]
    return any(st == 0 and n > 1 for st, n in zip(t.stride(), t.shape))


_INPUTS = re.compile(r"inputs=\[([^\]]*)\]")


def _inputs_own_node(line, lines, kns=None, tns=None, message=""):
    """``backward(inputs=[t])`` with a non-leaf ``t``: PyTorch checks the versions of what
    ``t.grad_fn`` saved though it needs no gradient beyond ``t``; kael stops at ``t``'s node
    without touching it, so a saved tensor of it modified in place raises there only."""
    m = _INPUTS.search(line)
    if m is None or tns is None or "modified by an inplace operation" not in message:
        return False
    names = re.findall(r"v\d+", m.group(1))
    return any(getattr(tns.get(n), "grad_fn", None) is not None for n in names)


_PREHOOK = re.compile(r"(v\d+)\.grad_fn\.register_prehook\(")


def _prehook_on_one_output(line, lines, kns=None, tns=None, message=""):
    """A node pre-hook on the ``grad_fn`` of one output of a custom Function with several
    floating outputs: PyTorch's node has every output, so its pre-hook gets (and must return)
    one gradient per output; kael's output has a node of its own (an ``OutputGrad``), whose
    pre-hook gets that output's gradient alone and may return one value (torchdiff seed
    888001531)."""
    if kns is None or "has returned an incorrect number of values" not in message:
        return False
    names = _PREHOOK.findall("\n".join(lines))
    return any(type(getattr(kns.get(n), "grad_fn", None)).__name__ == "OutputGrad" for n in names)


ERROR_LENIENCIES = [
    (_detach_of_internal_view, "detach_() of a matmul or Linear result PyTorch returns as an internal view"),
    (_write_into_expanded, "in-place write into a gradient PyTorch hands out expanded"),
    (_inputs_own_node, "backward(inputs=[non-leaf]) does not run the input's own node"),
    (_prehook_on_one_output, "a pre-hook on one output's grad_fn of a several-output Function sees that output alone"),
]

# value differences the README lists as deliberate: (test, reason); test(line, kael_ns, torch_ns,
# lines, detail) says whether the statement's difference is the listed one.
_GELU = re.compile(r"(v\d+) = F\.gelu\((v\d+)\)$")


def _gelu_of_inf(line, kns, tns, lines=(), detail=""):
    """PyTorch's vectorised float32 GELU kernel gives nan for +inf in a contiguous tensor of two
    or more elements (its scalar path, and float64, give inf); kael gives inf at any layout."""
    import torch

    m = _GELU.search(line.strip())
    if m is None or tns[m.group(2)].dtype is not torch.float32:
        return False
    x = tns[m.group(2)].detach()
    exact = torch.nn.functional.gelu(x.double()).float()  # the same function without the artifact
    return _same_values(kns[m.group(1)], exact, *FLOAT_TOL["float32"])


_SIGN_FLIP = re.compile(r"(-?inf|-?0\.0) vs torch (-?inf|-?0\.0)$")


def _signed_zero_of_a_matmul(line, kns, tns, lines=(), detail=""):
    """A matrix product whose terms are all ``-0.0`` is ``+0.0`` in kael (its sums start at
    ``+0.0``, as numpy's BLAS does) and ``-0.0`` in PyTorch; the two are equal, and only a later
    division (``1 / x``: ``inf`` against ``-inf``) tells them apart. Listed when the difference is
    such a sign and some earlier matrix product holds a zero whose sign differs."""
    del line
    if not _SIGN_FLIP.search(detail):
        return False
    made = [ln.split(" = ", 1)[0].strip() for ln in lines if " @ " in ln and " = " in ln]
    for name in made:
        k, t = kns.get(name), tns.get(name)
        if k is None or t is None or not hasattr(t, "tolist"):
            continue
        pairs = zip(_flat(k.tolist()), _flat(t.tolist()))
        if any(isinstance(a, float) and a == 0 and math.copysign(1, a) != math.copysign(1, b) for a, b in pairs):
            return True
    return False


_INPLACE_FROM = re.compile(r"(v\d+)\.\w+_\((v\d+)[,)]")


def _source_is_a_view_of_the_target(line, kns, tns, lines=(), detail=""):
    """``a.div_(a[:, 2])``: the source is a strided view into the target (an overlap PyTorch
    cannot prove partial, so it does not raise); PyTorch reads each source element as its loop
    reaches it, some already overwritten, so its result depends on its loop order. kael reads
    the whole source before writing, as if it were a copy."""
    del kns, lines, detail
    m = _INPLACE_FROM.search(line.strip().split("\n")[-1])
    if m is None or m.group(1) == m.group(2):
        return False
    target, source = tns.get(m.group(1)), tns.get(m.group(2))
    if not (hasattr(target, "untyped_storage") and hasattr(source, "untyped_storage")):
        return False
    return target.untyped_storage().data_ptr() == source.untyped_storage().data_ptr()


VALUE_DEVIATIONS = [
    (_gelu_of_inf, "gelu(+inf) in float32 is inf (PyTorch's vectorised kernel: nan)"),
    (_signed_zero_of_a_matmul, "a matmul of -0.0 terms is +0.0 (PyTorch: -0.0), seen through 1/x"),
    (_source_is_a_view_of_the_target, "an in-place op reads a source that views its target before writing"),
]

SHAPES = [(), (1,), (3,), (2, 3), (3, 1), (1, 3), (2, 1, 3), (3, 3), (0, 3), (2, 3, 1)]
SPECIALS = ["0.0", "-0.0", "1.0", "-1.0", "nan", "inf", "-inf", "2.0", "0.5"]
FLOAT_TOL = {"float64": (1e-7, 1e-9), "float32": (2e-4, 1e-5)}


# -- generation ----------------------------------------------------------------------------------


def _literal(rng, shape, dtype):
    """A nested-list literal of ``shape`` with values for ``dtype``."""
    if not shape:
        if dtype == "bool":
            return str(rng.random() < 0.5)
        if dtype == "int64":
            return str(rng.randint(-4, 5))
        if rng.random() < 0.06:
            return rng.choice(SPECIALS)
        return repr(round(rng.uniform(-3, 3), 3))
    return "[" + ", ".join(_literal(rng, shape[1:], dtype) for _ in range(shape[0])) + "]"


_AUTOGRAD_STATEMENTS = {
    "backward": "{out}.sum().backward({args})",
    "grad": "{new} = lib.autograd.grad({out}.sum(), [{leaf}], allow_unused=True{retain})[0]",
    "hook": "{out}.register_hook(lambda g: g * 2)",
    "retain": "{out}.retain_grad()",
    "inputs": "{out}.sum().backward(inputs=[{leaf}]{retain})",
    "requires": "{out}.requires_grad_(False)",
    "detach_": "{out}.detach_()",
    "many": "lib.autograd.backward([{out}.sum(), {out}.sum()]{retain})",
}


def _holds(pred, t) -> bool:
    """``pred(t)``, False where PyTorch refuses to answer (``is_leaf`` of a view made under
    no_grad whose memory changed raises)."""
    try:
        return pred(t)
    except RuntimeError:
        return False


class _Gen:
    """Makes the next statement from the PyTorch run's namespace."""

    def __init__(self, rng, ns):
        self.rng = rng
        self.ns = ns
        self.count = 0

    def fresh(self):
        name = f"v{self.count}"
        self.count += 1
        return name

    def tensors(self, pred=lambda t: True):
        import torch

        return [k for k, v in self.ns.items() if isinstance(v, torch.Tensor) and _holds(pred, v)]

    def pick(self, pred=lambda t: True):
        names = self.tensors(pred)
        return self.rng.choice(sorted(names)) if names else None

    def floats(self):
        return self.pick(lambda t: t.is_floating_point())

    def new_tensor(self):
        rng = self.rng
        shape = rng.choice(SHAPES)
        dtype = rng.choices(["float64", "float32", "int64", "bool"], [70, 15, 10, 5])[0]
        grad = dtype.startswith("float") and rng.random() < 0.6
        extra = ", requires_grad=True" if grad else ""
        return f"{self.fresh()} = lib.tensor({_literal(rng, shape, dtype)}, dtype=lib.{dtype}{extra})"

    # each op returns a statement or None when nothing fits
    def binary(self):
        a, b = self.pick(), self.pick()
        if a is None:
            return None
        op = self.rng.choice(["+", "-", "*", "/", "**", "%", "//", "maximum", "minimum", "==", "<", "where"])
        out = self.fresh()
        if op in ("maximum", "minimum"):
            return f"{out} = lib.{op}({a}, {b})"
        if op == "where":
            return f"{out} = lib.where({a} > 0, {a}, {b})"
        other = b if self.rng.random() < 0.7 else self.rng.choice(["2", "0.5", "-1.5", "0", "3"])
        if self.rng.random() < 0.2:
            return f"{out} = {other} {op} {a}"
        return f"{out} = {a} {op} {other}"

    def unary(self):
        a = self.pick()
        if a is None:
            return None
        rng = self.rng
        fn = rng.choice([
            "{a}.exp()", "{a}.log()", "{a}.sqrt()", "{a}.abs()", "{a}.sin()", "{a}.cos()", "{a}.tanh()",
            "{a}.sigmoid()", "{a}.relu()", "{a}.sign()", "lib.floor({a})", "lib.ceil({a})", "{a}.square()",
            "-{a}", "lib.erf({a})", "{a}.rsqrt()", "{a}.clamp(-0.5, 1.5)", "{a}.clamp(min=0.0)",
            "F.gelu({a})", "F.silu({a})", "F.gelu({a}, approximate='tanh')", "{a}.float()", "{a}.double()",
            "{a}.long()", "{a}.bool()",
        ])
        return f"{self.fresh()} = " + fn.format(a=a)

    def reduction(self):
        a = self.pick()
        if a is None:
            return None
        rng = self.rng
        nd = self.ns[a].dim()
        dim = rng.randrange(-nd, nd) if nd else rng.choice([0, -1])
        keep = rng.choice(["", ", keepdim=True"])
        fn = rng.choice([
            "{a}.sum()", "{a}.sum(dim={d}{k})", "{a}.sum(dim=())", "{a}.mean()", "{a}.mean(dim={d}{k})",
            "{a}.amax()", "{a}.amax(dim={d}{k})", "{a}.amin(dim=[])", "{a}.max()", "{a}.min()",
            "{a}.max(dim={d}{k}).values", "{a}.min(dim={d}{k}).indices", "{a}.var()", "{a}.std()",
            "{a}.var(dim={d}{k})", "{a}.std(dim={d}, unbiased=False)", "lib.logsumexp({a}, {d})",
            "{a}.softmax({d})", "{a}.log_softmax({d})", "{a}.argmax()", "{a}.argmax(dim={d}{k})",
            "{a}.sum(dim={d}, dtype=lib.float64)",
        ])
        return f"{self.fresh()} = " + fn.format(a=a, d=dim, k=keep)

    def shape_op(self):
        a = self.pick()
        if a is None:
            return None
        rng = self.rng
        t = self.ns[a]
        nd = t.dim()
        d0 = rng.randrange(-nd, nd) if nd else 0
        d1 = rng.randrange(-nd, nd) if nd else 0
        perm = list(range(nd))
        rng.shuffle(perm)
        fn = rng.choice([
            "{a}.reshape(-1)", "{a}.view(-1)", "{a}.reshape({s})", "{a}.transpose({d0}, {d1})",
            "{a}.permute({p})", "{a}.unsqueeze({d0})", "{a}.squeeze()", "{a}.squeeze({d0})", "{a}.flatten()",
            "{a}.t()", "{a}.T", "{a}.expand(2, *{a}.shape)", "{a}.contiguous()", "{a}.clone()", "{a}.detach()",
            "lib.cat([{a}, {a}], {d0})", "lib.stack([{a}, {a}], 0)", "{a}.mT",
        ])
        shape = list(t.shape)
        rng.shuffle(shape)
        return f"{self.fresh()} = " + fn.format(a=a, d0=d0, d1=d1, p=tuple(perm), s=tuple(shape) or "()")

    def index(self):
        a = self.pick(lambda t: t.dim() > 0)
        if a is None:
            return None
        rng = self.rng
        shape = self.ns[a].shape
        parts = []
        for n in shape:
            kind = rng.choice(["int", "slice", "list", "all", "none", "mask"])
            if kind == "int":
                parts.append(str(rng.randrange(-n, n)) if n else "0")
            elif kind == "slice":
                parts.append(f"{rng.randint(0, 2)}:{rng.randint(0, 3)}")
            elif kind == "list":
                parts.append("lib.tensor([" + ", ".join(str(rng.randrange(-n, n)) for _ in range(rng.randint(1, 3))) + "])" if n else ":")
            elif kind == "mask":
                parts.append("lib.tensor([" + ", ".join(rng.choice(["True", "False"]) for _ in range(n)) + "])")
            elif kind == "none":
                parts.append("None")
                parts.append(":")
            else:
                parts.append(":")
        if rng.random() < 0.2:
            parts[rng.randrange(len(parts))] = "..."
        parts = parts[: rng.randint(1, len(parts))]
        return f"{self.fresh()} = {a}[{', '.join(parts)}]"

    def matmul(self):
        a = self.floats()
        if a is None:
            return None
        t = self.ns[a]
        k = t.shape[-1] if t.dim() else 1
        rng = self.rng
        shape = rng.choice([(k,), (k, 2), (2, k, 1), (3,)])
        lit = _literal(rng, shape, "float64")
        dtype = "float64" if t.dtype.is_floating_point and str(t.dtype) == "torch.float64" else "float32"
        return f"{self.fresh()} = {a} @ lib.tensor({lit}, dtype=lib.{dtype})"

    def inplace(self):
        a = self.pick()
        if a is None:
            return None
        rng = self.rng
        b = self.pick()
        fn = rng.choice([
            "{a}.add_({b})", "{a}.mul_(2)", "{a}.sub_(0.5)", "{a}.div_({b})", "{a}.clamp_(-1, 1)",
            "{a}.clamp_(0.5, 1.5)", "{a}.fill_(1.5)", "{a}.zero_()", "{a}.copy_({b})", "{a}[0] = 1.7",
            "{a}[...] = {b}", "{a} += 1",
        ])
        line = fn.format(a=a, b=b)
        if rng.random() < 0.4:
            return "with lib.no_grad():\n    " + line
        return line

    def autograd(self):
        rng = self.rng
        out = self.pick(lambda t: t.requires_grad)
        if out is None:
            return None
        retain = rng.choice(["", ", retain_graph=True"])
        kind = rng.choice(["backward", "backward", "grad", "hook", "retain", "inputs", "requires", "detach_", "many"])
        template = _AUTOGRAD_STATEMENTS[kind]
        leaf = self.pick(lambda t: t.requires_grad) if "{leaf}" in template else None
        new = self.fresh() if "{new}" in template else None
        return template.format(out=out, leaf=leaf, new=new, retain=retain, args=retain[2:])

    def nn(self):
        rng = self.rng
        a = self.floats()
        if a is None:
            return None
        t = self.ns[a]
        out = self.fresh()
        dtype = str(t.dtype).replace("torch.", "")
        kind = rng.choice(["mse", "bce", "bcel", "ce", "nll", "linear", "sgd", "adam", "softmaxloss"])
        if kind == "mse":
            return f"{out} = F.mse_loss({a}, lib.tensor({_literal(rng, tuple(t.shape), dtype)}, dtype=lib.{dtype}))"
        if kind == "bce":
            p = _literal(rng, tuple(t.shape), "float64").replace("-", "")
            return f"{out} = F.binary_cross_entropy({a}.sigmoid(), lib.tensor({p}, dtype=lib.{dtype}).clamp(0, 1))"
        if kind == "bcel":
            tgt = _literal(rng, tuple(t.shape), "bool")
            return f"{out} = F.binary_cross_entropy_with_logits({a}, lib.tensor({tgt}, dtype=lib.{dtype}))"
        if kind in ("ce", "nll", "softmaxloss"):
            if t.dim() != 2 or 0 in t.shape:
                return None
            targets = [rng.randrange(t.shape[1]) for _ in range(t.shape[0])]
            fn = "F.cross_entropy" if kind == "ce" else "F.nll_loss"
            x = f"F.log_softmax({a}, 1)" if kind == "softmaxloss" else a
            return f"{out} = {fn}({x}, lib.tensor({targets}, dtype=lib.int64))"
        if kind == "linear":
            if t.dim() == 0:
                return None
            n_in = t.shape[-1]
            w = _literal(rng, (2, n_in), "float64")
            b = _literal(rng, (2,), "float64")
            m = self.fresh()
            return (
                f"{m} = lib.nn.Linear({n_in}, 2, dtype=lib.{dtype})\n"
                f"with lib.no_grad():\n    {m}.weight.copy_(lib.tensor({w}))\n    {m}.bias.copy_(lib.tensor({b}))\n"
                f"{out} = {m}({a})\n{self.fresh()} = {m}.weight\n{self.fresh()} = {m}.bias"
            )
        leaf = self.pick(lambda x: x.requires_grad and x.is_leaf)
        if leaf is None:
            return None
        opt = "lib.optim.SGD([{l}], lr=0.1, momentum=0.9)" if kind == "sgd" else "lib.optim.Adam([{l}], lr=0.01)"
        return f"o = {opt.format(l=leaf)}\nif {leaf}.grad is not None:\n    o.step()\n    o.step()\no.zero_grad()"

    # -- issue 23: what learners' PyTorch code does (promotion, bitwise ops, errors, Functions
    # with several outputs, every kind of hook, checkpoint over closed-over tensors)

    def promotion(self):
        """Every operator with a Python scalar or a 0-d tensor of any dtype, on either side."""
        a = self.pick()
        if a is None:
            return None
        rng = self.rng
        op = rng.choice(["+", "-", "*", "/", "**", "%", "//", "&", "|", "^", "==", "<", ">=", "!="])
        other = rng.choice(["2", "-3", "0.5", "-1.5", "True", "False",
                            f"lib.tensor({rng.choice(['2', '-1', '0.25', 'True'])}, dtype=lib.{rng.choice(_DTYPES)})"])
        out = self.fresh()
        return f"{out} = {other} {op} {a}" if rng.random() < 0.4 else f"{out} = {a} {op} {other}"

    def bitwise(self):
        a = self.pick(lambda t: not t.is_floating_point())
        if a is None:
            return None
        b = self.pick(lambda t: not t.is_floating_point())
        form = self.rng.choice(["{a} & {b}", "{a} | {b}", "{a} ^ {b}", "~{a}", "{a} & 6", "5 | {a}", "True ^ {a}",
                                "lib.bitwise_and({a}, {b})", "lib.bitwise_not({a})"])
        return f"{self.fresh()} = " + form.format(a=a, b=b)

    def errors(self):
        a = self.pick()
        if a is None:
            return None
        b = self.pick()
        form = self.rng.choice([
            "{new} = lib.tensor({a}.item())", "{new} = {a}.float() @ {b}.double()", "{new} = {a}.long() @ {b}.float()",
            "{new} = {a}.expand(-1, *{a}.shape)", "{new} = lib.tensor(float(f'{{{a}.sum():.4f}}'))",
            "{new} = lib.tensor([{a} == None, {a} != 'x'])", "{new} = lib.tensor(1.5 in {a})",
            "{new} = {a}.to({b})", "{new} = {a}.to('cpu', lib.float64)", "{new} = {a}.data",
            "{new} = lib.tensor({a}.tolist(), dtype=float)", "{new} = {a}.norm()",
        ])
        return form.format(a=a, b=b, new=self.fresh())

    def function(self):
        a = self.floats()
        if a is None:
            return None
        o1, o2 = self.fresh(), self.fresh()
        kind = self.rng.choice(["two", "materialize", "number"])
        body = _FUNCTIONS[kind]
        return body + f"\n{o1}, {o2}, _ = Two.apply({a})"

    def hook(self):
        out = self.pick(lambda t: t.grad_fn is not None)
        a = self.floats()
        if out is None or a is None:
            return None
        form = self.rng.choice([
            "h = {out}.grad_fn.register_prehook(lambda g: (g[0] * 2,))",
            "h = {out}.grad_fn.register_hook(lambda gi, go: tuple(None if g is None else g * 0.5 for g in gi))",
            "h = {out}.register_hook(lambda g: g + 1)",
            "with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t + 0):\n    {new} = ({a} * {a}).sin()",
            "with lib.autograd.graph.save_on_cpu():\n    {new} = {a}.exp() * {a}",
        ])
        return form.format(out=out, a=a, new=self.fresh())

    def checkpointed(self):
        a = self.floats()
        w = self.pick(lambda t: t.requires_grad)
        if a is None or w is None:
            return None
        body = self.rng.choice(["(x * {w}.sum()).sin()", "x.exp() * {w}.mean() + x", "(x - {w}.amax()).tanh() * 2"])
        return (f"{self.fresh()} = checkpoint(lambda x: {body.format(w=w)}, {a}.double() if {a}.dtype != {w}.dtype "
                f"else {a}, use_reentrant=False)")

    def statement(self):
        rng = self.rng
        if len(self.tensors()) < 2:
            return self.new_tensor()
        makers = [self.new_tensor, self.binary, self.unary, self.reduction, self.shape_op, self.index,
                  self.matmul, self.inplace, self.autograd, self.nn, self.promotion, self.bitwise, self.errors,
                  self.function, self.hook, self.checkpointed]
        weights = [10, 22, 16, 14, 12, 8, 4, 6, 12, 5, 6, 3, 4, 2, 3, 2]
        for _ in range(10):
            line = rng.choices(makers, weights)[0]()
            if line is not None:
                if rng.random() < 0.08 and "\n" not in line and line.startswith("v"):
                    return "with lib.no_grad():\n    " + line
                return line
        return self.new_tensor()


# -- running and comparing --------------------------------------------------------------------------


_DTYPES = ["float64", "float32", "int64", "bool"]

_FUNCTION_HEAD = """class Two(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
"""
_FUNCTIONS = {
    "two": _FUNCTION_HEAD + """        return x * 2, x.exp(), 3
    @staticmethod
    def backward(ctx, ga, gb, gc):
        (x,) = ctx.saved_tensors
        return ga * 2 + gb * x.exp()""",
    "materialize": _FUNCTION_HEAD + """        ctx.set_materialize_grads(False)
        return x.sin(), x.cos(), None
    @staticmethod
    def backward(ctx, ga, gb, gc):
        (x,) = ctx.saved_tensors
        g = 0 if ga is None else ga * x.cos()
        return g if gb is None else g - gb * x.sin()""",
    "number": _FUNCTION_HEAD + """        return x * x, (x * 3).long(), 'text'
    @staticmethod
    def backward(ctx, ga, gb, gc):
        (x,) = ctx.saved_tensors
        return ga * 2 * x, None""",
}


def _namespace(lib):
    import importlib

    checkpoint = importlib.import_module(lib.__name__ + ".utils.checkpoint").checkpoint
    return {"lib": lib, "F": lib.nn.functional, "nan": math.nan, "inf": math.inf, "checkpoint": checkpoint}


def _run(line, ns, where):
    try:
        exec(compile(line, where, "exec"), ns)
    except Exception as exc:  # noqa: BLE001  (any error is compared by type)
        return exc
    return None


def _flat(x):
    if isinstance(x, list):
        out = []
        for v in x:
            out.extend(_flat(v))
        return out
    return [x]


def _close(a, b, rtol, atol):
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= atol + rtol * abs(b)
    return a == b


def _same_values(k, t, rtol, atol):
    ka, ta = _flat(k.tolist()), _flat(t.tolist())
    return len(ka) == len(ta) and all(_close(x, y, rtol, atol) for x, y in zip(ka, ta))


def _first_mismatch(k, t, rtol, atol) -> str:
    ka, ta = _flat(k.tolist()), _flat(t.tolist())
    for i, (x, y) in enumerate(zip(ka, ta)):
        if not _close(x, y, rtol, atol):
            return f"element {i}: {x!r} vs torch {y!r}"
    return f"{len(ka)} elements vs torch {len(ta)}"


def _compare_tensor(name, k, t, single):
    """The first difference between kael tensor ``k`` and torch tensor ``t``, or None.
    ``single``: the program has computed in float32, whose last-bit differences (numpy's or
    Python's float32 kernels against PyTorch's) may reach float64 results through a cast."""
    tdtype = str(t.dtype).replace("torch.", "")
    kdtype = k.dtype.name if k.dtype.name != "bool_" else "bool"
    if tuple(k.shape) != tuple(t.shape):
        return "shape", f"{name}: shape {list(k.shape)} vs torch {list(t.shape)}"
    if kdtype != tdtype:
        return "dtype", f"{name}: dtype {kdtype} vs torch {tdtype}"
    rtol, atol = FLOAT_TOL.get("float32" if single and tdtype == "float64" else tdtype, (0, 0))
    if not _same_values(k, t.detach(), rtol, atol):
        return "value", f"{name} ({tdtype}): {_first_mismatch(k, t.detach(), rtol, atol)}"
    if k.requires_grad != t.requires_grad:
        return "requires_grad", f"{name}: requires_grad {k.requires_grad} vs torch {t.requires_grad}"
    if k.is_leaf != t.is_leaf:
        return "is_leaf", f"{name}: is_leaf {k.is_leaf} vs torch {t.is_leaf}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kg, tg = k.grad, t.grad
    if (kg is None) != (tg is None):
        return "grad", f"{name}.grad: {None if kg is None else kg.tolist()} vs torch {None if tg is None else tg.tolist()}"
    if kg is not None:
        if tuple(kg.shape) != tuple(tg.shape) or not _same_values(kg, tg, rtol * 10, atol * 10):
            return "grad", f"{name}.grad: {_first_mismatch(kg, tg, rtol * 10, atol * 10)}"
    return None


def _compare(kns, tns, kael, torch, single):
    for name in sorted(tns):
        t = tns[name]
        if not isinstance(t, torch.Tensor):
            continue
        k = kns.get(name)
        if not isinstance(k, kael.Tensor):
            return "value", f"{name}: {type(k).__name__} vs torch Tensor"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t.requires_grad, t.is_leaf, t.grad  # noqa: B018  (PyTorch may refuse to tell)
        except RuntimeError:
            continue
        diff = _compare_tensor(name, k, t, single)
        if diff:
            return diff
    return None


def _explained_value(diff, line, kns, tns, lines=()):
    if diff[0] == "value":
        for test, reason in VALUE_DEVIATIONS:
            if test(line, kns, tns, lines, diff[1]):
                return f"deviation: {reason}", diff[1]
    return diff


def _classify_error(kexc, texc, backend="any", line="", lines=(), tns=None, kns=None):
    if kexc is not None and texc is not None:
        if type(kexc).__name__ != type(texc).__name__:
            return "error-type", f"kael {type(kexc).__name__}: {kexc} | torch {type(texc).__name__}: {texc}"
        return None
    if kexc is not None:
        message = str(kexc)
        for pattern, reason in DEVIATIONS.items():
            if pattern in message:
                return f"deviation: {reason}", message
        return "kael-only-error", f"{type(kexc).__name__}: {message}"
    message = str(texc)
    for pattern, reason in {**LENIENCIES.get("any", {}), **LENIENCIES.get(backend, {})}.items():
        if pattern in message:
            return f"lenient: {reason}", message
    for test, reason in ERROR_LENIENCIES:
        if test(line, lines, kns=kns, tns=tns, message=message):
            return f"lenient: {reason}", message
    return "torch-only-error", f"{type(texc).__name__}: {message}"


def generate_and_run(seed, kael, torch, statements=14):
    """Generate and run program ``seed``; returns ``(kind, detail, lines)`` with ``kind`` None
    when both runs agreed after every statement."""
    rng = random.Random(seed)
    kns, tns = _namespace(kael), _namespace(torch)
    gen = _Gen(rng, tns)
    lines = []
    single = False  # some tensor was float32 (see _compare_tensor)
    where = f"<program {seed}>"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(statements):
            line = gen.statement()
            lines.append(line)
            texc = _run(line, tns, where)
            kexc = _run(line, kns, where)
            diff = None
            if kexc is not None or texc is not None:
                diff = _classify_error(kexc, texc, kael.backend_name(), line, lines, tns, kns)
            if diff is None:
                try:
                    single = single or any(getattr(v, "dtype", None) is torch.float32 for v in tns.values())
                    diff = _compare(kns, tns, kael, torch, single)
                    if diff is not None:
                        diff = _explained_value(diff, line, kns, tns, lines)
                except Exception as exc:  # noqa: BLE001  (a kael result that cannot be read)
                    diff = "broken-result", f"{type(exc).__name__}: {exc}"
            if diff is not None:
                return diff[0], diff[1], lines
    return None, None, lines


def run_many(seeds, kael, torch, statements=14):
    """``[(seed, kind, detail, lines)]`` for every program that differed."""
    out = []
    for seed in seeds:
        kind, detail, lines = generate_and_run(seed, kael, torch, statements)
        if kind is not None:
            out.append((seed, kind, detail, lines))
    return out


def summarize(n, differences, show=1) -> str:
    counts = Counter(kind for _, kind, _, _ in differences)
    rows = [f"{n} programs, {n - len(differences)} without a difference"]
    for kind, count in counts.most_common():
        rows.append(f"  {count:6d}  {kind}")
        shown = [d for d in differences if d[1] == kind][:show]
        for seed, _, detail, lines in shown:
            rows.append(f"          seed {seed}: {detail[:300]}")
            rows.extend("            | " + ln for line in lines for ln in line.split("\n"))
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=1000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--statements", type=int, default=14)
    parser.add_argument("--show", type=int, default=1, help="example programs shown per kind")
    parser.add_argument("--seeds", type=int, nargs="+", help="run these seeds (N is ignored)")
    parser.add_argument("--list", action="store_true", help="one line per differing seed")
    args = parser.parse_args(argv)
    import torch

    import kael

    start = time.perf_counter()
    seeds = args.seeds or range(args.first_seed, args.first_seed + args.n)
    differences = run_many(seeds, kael, torch, args.statements)
    print(f"kael backend {kael.backend_name()}, torch {torch.__version__}, "
          f"{time.perf_counter() - start:.1f} s")
    print(summarize(len(seeds), differences, args.show))
    if args.list:
        print("\n".join(f"seed {seed}\t{kind}\t{detail[:200]}" for seed, kind, detail, _ in differences))
    return 1 if unexplained(differences) else 0


def unexplained(differences):
    """The differences that are neither deliberate deviations nor listed leniencies."""
    return [d for d in differences if not d[1].startswith(("deviation", "lenient"))]


if __name__ == "__main__":
    sys.exit(main())
