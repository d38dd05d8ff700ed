"""One registration per op, checked: every public op of ``kael.ops`` is reachable as PyTorch
exposes it, every Tensor method PyTorch has for a kael op exists, the generated methods keep
the hand-written ones' signatures, every op is tested, every differentiable op's node is
reached by a gradcheck, and the tensor<->ops import cycle keeps its one idiom
(CONTRIBUTING.md, "The import cycle").

Adding an op to a family's ``__all__`` without its Tensor method (when PyTorch has one), without
a test, or without a gradcheck of its node fails here, naming the op.
"""

import ast
import inspect
import pathlib
import re

import pytest

import kael
from kael import ops
from kael.autograd.function import Function
from kael.ops import _register

import test_ops
import test_ops_select

HERE = pathlib.Path(__file__).parent
KAEL = HERE.parent.parent / "kael"

# In kael.ops.__all__ but not PyTorch API: kael's own helpers, each with what it is for.
KAEL_ONLY = {
    "sum_to": "undoes broadcasting in a backward (exercises ask for it)",
    "cast": "the op behind Tensor.to(dtype)",
    "inplace_binary": "the op behind add_, sub_, mul_, div_, pow_ and +=, -=, *=, /=",
    "inplace_copy": "the op behind copy_",
    "inplace_fill": "the op behind zero_ and fill_",
    "inplace_clamp": "the op behind clamp_",
    "check_inplace": "ADR 0005 rule 6, shared by every in-place op",
}
# PyTorch has a Tensor method of this name, and kael's op of that name is something else.
NOT_METHODS = {
    "index": "kael's index(t, key) is t[key] (Tensor.__getitem__)",
    "index_put_": "kael's index_put_(t, key, value) is t[key] = value; torch's takes a tuple of index tensors",
}
# Differentiable Functions of kael.ops whose node no GRADCHECK case reaches, and why.
NOT_GRADCHECKED = {
    "Cast": "needs a coarse step through float32: test_ops.py's test_gradcheck_through_a_cast",
    "FloorDivide": "no derivative, as in PyTorch: backward raises",
    "RemainderOfNumber": "no derivative for remainder(Scalar, Tensor), as in PyTorch: backward raises",
    "_PiecewiseConstant": "the base class of Floor, Ceil and Sign",
    "_Kernel": "the base class of the one-kernel ops (Exp, Log, Tanh, ...)",
}
# the tests an op's name must appear in, called or quoted
TEST_FILES = ["test_ops.py", "test_ops_select.py", "test_tensor.py", "test_torch_crosscheck.py",
              "test_torch_parity.py", "torchdiff.py", "test_autograd.py"]


def _public_ops():
    return [n for n in ops.__all__ if n not in KAEL_ONLY]


def test_kael_only_names_are_exported_and_not_pytorch_api():
    torch = pytest.importorskip("torch")
    for name in KAEL_ONLY:
        assert name in ops.__all__, f"{name} is listed in KAEL_ONLY but is not in kael.ops.__all__"
        assert not hasattr(torch, name) and not hasattr(torch.Tensor, name), (
            f"{name} is PyTorch API now: take it out of KAEL_ONLY")


def test_every_op_is_reachable_as_pytorch_exposes_it():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF

    problems = []
    for name in _public_ops():
        as_function, as_method = hasattr(torch, name), hasattr(torch.Tensor, name)
        if not (as_function or as_method or hasattr(TF, name)):
            problems.append(f"{name}: neither torch.{name}, torch.Tensor.{name} nor F.{name}; "
                            "a kael-only helper goes in KAEL_ONLY with its reason")
        if as_function and not hasattr(kael, name):
            problems.append(f"{name}: torch.{name} exists, kael.{name} does not")
        if as_method and name not in NOT_METHODS and not hasattr(kael.Tensor, name):
            problems.append(f"{name}: torch.Tensor.{name} exists, kael.Tensor.{name} does not "
                            f"(register it: method({name}) at the bottom of its family file)")
    assert not problems, "\n".join(problems)


def test_no_tensor_method_that_pytorch_lacks():
    torch = pytest.importorskip("torch")
    extra = [n for n in dir(kael.Tensor) if not n.startswith("_") and not hasattr(torch.Tensor, n)]
    assert not extra, f"kael.Tensor has methods torch.Tensor lacks: {extra}"


def test_registered_methods_are_installed_with_their_names():
    assert len(_register.METHODS) > 100
    for name, fn in _register.METHODS.items():
        assert getattr(kael.Tensor, name) is fn, name
        assert fn.__qualname__.startswith("Tensor."), (name, fn.__qualname__)
        assert fn.__module__ == "kael.tensor", name
        op = _register.OPS[name]
        assert getattr(ops, op.__name__, None) is op or op.__module__.startswith("kael.ops."), name
    for name in NOT_METHODS:
        assert name not in _register.METHODS


def test_a_derived_method_takes_the_ops_parameters():
    """A method registered with no ``params`` has the op's signature, its tensor as ``self``."""
    derived = {"exp", "sum", "var", "norm", "softmax", "flatten", "topk", "multinomial", "cumsum", "view"}
    for name in derived:
        got = list(inspect.signature(getattr(kael.Tensor, name)).parameters.values())
        want = list(inspect.signature(getattr(ops, name)).parameters.values())
        assert got[0].name == "self"
        assert [(p.name, p.kind, p.default) for p in got[1:]] == [(p.name, p.kind, p.default) for p in want[1:]], name


def test_a_method_reads_as_the_hand_written_one():
    t = kael.ones(2, 3)
    assert str(inspect.signature(kael.Tensor.sum)) == "(self, dim=None, keepdim=False, dtype=None, *, axis=None)"
    assert str(inspect.signature(t.where)) == "(condition, other)"
    assert kael.Tensor.add is kael.Tensor.__add__ and kael.Tensor.clip is kael.Tensor.clamp
    with pytest.raises(TypeError, match=r"^Tensor\.exp\(\) takes 1 positional argument but 2 were given$"):
        t.exp(1)
    with pytest.raises(TypeError, match=r"^Tensor\.split\(\) missing 1 required positional argument: 'split_size'$"):
        t.split()
    assert (2 - t).tolist() == [[1.0] * 3] * 2 and (t ** 2 + 1).tolist() == [[2.0] * 3] * 2


def test_registering_a_name_twice_or_over_a_hand_written_method_is_refused():
    before = dict(_register.METHODS), dict(_register.OPS)
    try:
        with pytest.raises(RuntimeError, match="registered twice"):
            _register.method(ops.exp, "exp")

        class Host:
            def exp(self):
                return None

        _register.METHODS.clear()
        _register.OPS.clear()
        _register.method(ops.exp)
        with pytest.raises(RuntimeError, match="both written in kael/tensor.py and registered"):
            _register.install(Host)
    finally:
        _register._PENDING.clear()
        _register.METHODS.clear()
        _register.OPS.clear()
        _register.METHODS.update(before[0])
        _register.OPS.update(before[1])


_OPERATORS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floor_divide",
    ast.Mod: "remainder", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "bitwise_and",
    ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor", ast.Invert: "bitwise_not", ast.USub: "neg",
    ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge",
}


def _names_used(tree, found):
    """Attribute and variable names, operators (as the op they call), and the same inside string
    constants that are Python code (torchdiff's program statements)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.AugAssign)):
            found.add(_OPERATORS.get(type(node.op), ""))
        elif isinstance(node, ast.Subscript):
            found.add("index_put_" if isinstance(node.ctx, ast.Store) else "index")
        elif isinstance(node, ast.Compare):
            found.update(_OPERATORS.get(type(op), "") for op in node.ops)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(re.findall(r"\w+", node.value))
            try:
                _names_used(ast.parse(node.value.strip()), found)
            except (SyntaxError, ValueError):
                pass
    return found


def test_every_op_is_tested():
    """Each public op is used (called, as a method, through its operator, or named in a quoted
    list) in a value test, a gradcheck or a PyTorch cross-check."""
    used = set()
    for name in TEST_FILES:
        _names_used(ast.parse((HERE / name).read_text()), used)
    untested = [n for n in _public_ops() if n not in used]
    assert not untested, f"ops no test uses: {untested} (tests/kael/test_ops.py: a value test and GRADCHECK)"


def _functions_of(node_out, found):
    outs = node_out if isinstance(node_out, (tuple, list)) else (node_out,)
    stack = [o.grad_fn for o in outs if isinstance(o, kael.Tensor) and o.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        fn = getattr(type(node), "function", None)
        if fn is not None:
            found.add(fn.__name__)
        stack.extend(edge for edge, _ in node.next_functions)


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_differentiable_op_is_gradchecked():
    """The nodes the gradcheck cases record (test_ops.GRADCHECK, test_ops_select.CASES) cover
    every Function of kael.ops: no hand-kept list of names to forget an op in."""
    reached = set()
    for name, fn, specs in test_ops.GRADCHECK:
        g = kael.Generator(sum(map(ord, name)))
        _functions_of(fn(*[s.make(g) for s in specs]), reached)
    for fn in test_ops_select.CASES.values():
        _functions_of(fn(kael, kael.tensor(test_ops_select.X, dtype=kael.float64, requires_grad=True)), reached)
    functions = {c.__name__ for c in _subclasses(Function) if c.__module__.startswith("kael.ops.")}
    missing = sorted(functions - reached - set(NOT_GRADCHECKED))
    assert not missing, f"no gradcheck reaches these ops' nodes: {missing} (add a case to test_ops.GRADCHECK)"
    stale = sorted(set(NOT_GRADCHECKED) & reached)
    assert not stale, f"NOT_GRADCHECKED lists ops a gradcheck does reach: {stale}"


# -- the import cycle's one idiom ------------------------------------------------------------------


def _kael_modules():
    return sorted(p for p in KAEL.rglob("*.py") if "__pycache__" not in p.parts)


def _imports_tensor(node, path):
    if isinstance(node, ast.ImportFrom):
        mod = node.module or ""
        if node.level:
            package = path.relative_to(KAEL.parent).with_suffix("").parts[:-1]
            base = package[: len(package) - node.level + 1]
            full = ".".join(base + ((mod,) if mod else ()))
            names = [a.name for a in node.names]
            return full == "kael.tensor" or full == "kael" and "tensor" in names
        return mod == "kael.tensor"
    if isinstance(node, ast.Import):
        return any(a.name == "kael.tensor" for a in node.names)
    return False


def test_no_module_imports_kael_tensor_inside_a_function():
    offenders = []
    for path in _kael_modules():
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                offenders += [f"{path.relative_to(KAEL.parent)}:{n.lineno}" for n in ast.walk(fn)
                              if _imports_tensor(n, path)]
    assert not offenders, f"import kael.tensor at the module's top (CONTRIBUTING.md, 'The import cycle'): {offenders}"


def test_tensor_is_never_handed_to_a_module_after_import():
    text = "\n".join(p.read_text() for p in _kael_modules())
    assert "_bind_tensor" not in text


# the other cycle kael/autograd has, with the same idiom: node.py, which post_accumulate.py
# imports at its top, imports it at its bottom
LATE_IMPORTS = {"kael/autograd/node.py"}


def test_only_tensor_py_imports_at_its_bottom_in_the_cycle():
    """In autograd and ops, imports come before the first def or class (kael/tensor.py, outside
    both, holds the bottom half of the cycle)."""
    late = set()
    for path in sorted((KAEL / "autograd").glob("*.py")) + sorted((KAEL / "ops").glob("*.py")):
        seen_def = False
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                seen_def = True
            elif seen_def and isinstance(node, (ast.Import, ast.ImportFrom)):
                late.add(str(path.relative_to(KAEL.parent)))
    assert late == LATE_IMPORTS, sorted(late)
