"""The autograd as kael's ADR 0005 decides it, with rml's refinements and PyTorch's API.

Test names carry the ADR's test names (AutogradEngine.DiamondWaitsForBothPaths becomes
``test_diamond_waits_for_both_paths``...), and every message the ADR gives is checked word for
word.
"""

import gc
import re
import sys
import threading
import weakref

import pytest

import kael
from kael.autograd import Function, gradcheck
from kael.autograd.engine import count_dependencies
from kael.autograd.gradcheck import GradcheckError
from kael.autograd.node import AccumulateGrad, FunctionNode, Node, NodeInput

F64 = kael.float64


def leaf(values, dtype=F64):
    """A float64 leaf that requires grad, as the ADR's ``leaf({1, 2})``."""
    return kael.tensor(values, dtype=dtype, requires_grad=True)


def node_names(root):
    """Every node reachable from ``root`` (depth first, explicit stack), by name."""
    out, stack, seen = [], [root], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n.name())
        stack.extend(reversed([f for f, _ in n.next_functions]))
    return out


# -- AutogradEngine: the ADR's named cases ------------------------------------------------------------


def test_AutogradEngine_DiamondWaitsForBothPaths():
    x = leaf([1.0, 2.0])
    a = x * 2
    b = x * 3
    root = (a + b).sum()

    sum_node = root.grad_fn
    add_node = sum_node.next_functions[0][0]
    mul_a, mul_b = (f for f, _ in add_node.next_functions)
    acc = mul_a.next_functions[0][0]
    assert [sum_node.name(), add_node.name(), mul_a.name(), mul_b.name(), acc.name()] == [
        "SumBackward", "AddBackward", "MulBackward", "MulBackward", "AccumulateGrad"]
    assert mul_b.next_functions[0][0] is acc  # every use of a leaf shares one AccumulateGrad
    assert mul_a.next_functions[1] == (None, 0) and mul_b.next_functions[1] == (None, 0)  # constants 2, 3
    deps = count_dependencies([sum_node])
    assert deps[add_node] == 1 and deps[mul_a] == 1 and deps[mul_b] == 1 and deps[acc] == 2

    arrivals = []
    x.register_hook(lambda g: arrivals.append(g.tolist()))
    root.backward()
    assert arrivals == [[5.0, 5.0]]  # AccumulateGrad runs once, with the complete sum
    assert x.grad.tolist() == [5.0, 5.0]


def test_AutogradEngine_DiamondWaitsForBothPaths_order_of_steps():
    # The ready list is a stack: MulBackward(b), pushed last, runs first; AccumulateGrad last.
    x = leaf([1.0, 2.0])
    a = x * 2
    b = x * 3
    order = []
    for name, t in (("a", a), ("b", b)):
        t.grad_fn.register_prehook(lambda gs, name=name: order.append(f"Mul({name})"))
    x.register_hook(lambda g: order.append("AccumulateGrad"))
    (a + b).sum().backward()
    assert order == ["Mul(b)", "Mul(a)", "AccumulateGrad"]


def test_AutogradEngine_RepeatedInputAccumulates():
    x = leaf([1.0, -2.0, 3.0])
    y = x * x
    acc = y.grad_fn.next_functions[0][0]
    assert y.grad_fn.next_functions[1][0] is acc
    assert count_dependencies([y.sum().grad_fn])[acc] == 2
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, -4.0, 6.0]  # 2x, not x


class _Unraisable:
    """Collects exceptions raised where Python can only report them (``__del__`` during
    destruction), which would otherwise pass unnoticed."""

    def __enter__(self):
        self.errors = []
        self._previous = sys.unraisablehook
        sys.unraisablehook = lambda info: self.errors.append(info.exc_value)
        return self

    def __exit__(self, *exc):
        sys.unraisablehook = self._previous
        return False


def _chain(n):
    x = kael.zeros(1, dtype=F64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y + 1
    return x, y


def test_AutogradEngine_DeepChainDestructionWithoutBackward():
    x, y = _chain(50_000)
    assert y.item() == 50_000.0
    first = weakref.ref(y.grad_fn)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # freed by reference counting alone: no cycles, no collector needed
    try:
        with _Unraisable() as unraisable:
            del y  # must not raise RecursionError or overflow the C stack
        assert first() is None
        assert unraisable.errors == []
    finally:
        if gc_was_enabled:
            gc.enable()
    assert x.grad is None


def test_AutogradEngine_DeepChainBackwardAndDestruction():
    x, y = _chain(50_000)
    first = weakref.ref(y.grad_fn)
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
    with _Unraisable() as unraisable:
        del y
    assert first() is None and unraisable.errors == []


def test_AutogradEngine_SecondBackwardWithoutRetainThrows():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError) as info:
        y.backward()
    message = str(info.value)
    assert message.startswith("Trying to backward through the graph a second time (")
    assert message.endswith("); specify retain_graph=true")
    assert x.grad.tolist() == [2.0, 4.0]  # the failed call added nothing


def test_AutogradEngine_SecondBackwardThroughASharedSubgraphThrows():
    x = leaf([1.0])
    h = x * x
    h.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time .*MulBackward"):
        (h * 2).sum().backward()


def test_AutogradEngine_RetainGraphAccumulatesInLeaves():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    assert x.grad.tolist() == [2.0, 4.0]
    y.backward(retain_graph=True)
    assert x.grad.tolist() == [4.0, 8.0]
    y.backward()
    assert x.grad.tolist() == [6.0, 8.0 + 4.0]
    with pytest.raises(RuntimeError, match="specify retain_graph=true"):
        y.backward()


def test_GradMode_ExceptionRestoresState():
    assert kael.is_grad_enabled()
    with pytest.raises(ValueError):
        with kael.no_grad():
            assert not kael.is_grad_enabled()
            raise ValueError("boom")
    assert kael.is_grad_enabled()
    with kael.no_grad():
        with pytest.raises(KeyError):
            with kael.enable_grad():
                assert kael.is_grad_enabled()
                raise KeyError("inner")
        assert not kael.is_grad_enabled()
    with pytest.raises(RuntimeError):
        with kael.inference_mode():
            raise RuntimeError("x")
    assert kael.is_grad_enabled() and not kael.is_inference_mode_enabled()

    @kael.no_grad()
    def fails():
        raise IndexError

    with pytest.raises(IndexError):
        fails()
    assert kael.is_grad_enabled()


def test_GradMode_backward_restores_state_when_a_node_raises():
    class Boom(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ZeroDivisionError("in backward")

    x = leaf([1.0])
    with pytest.raises(ZeroDivisionError):
        Boom.apply(x).sum().backward()
    assert kael.is_grad_enabled() and gc.isenabled()


# -- the ADR's messages, word for word --------------------------------------------------------------


def test_requires_grad_on_int64_throws():
    with pytest.raises(RuntimeError) as info:
        kael.tensor([1, 2]).requires_grad_()
    assert str(info.value) == "only floating point tensors can require gradients, got dtype int64"
    with pytest.raises(RuntimeError, match="^only floating point tensors can require gradients, got dtype bool$"):
        kael.tensor([True]).requires_grad_()
    with pytest.raises(RuntimeError, match="got dtype int64$"):
        kael.zeros(2, dtype=kael.int64, requires_grad=True)
    kael.tensor([1, 2]).requires_grad_(False)  # turning it off is fine


def test_implicit_gradient_only_for_scalar_outputs():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError) as info:
        (x * 2).backward()
    assert str(info.value) == "grad can be implicitly created only for scalar outputs"
    (x * 2).backward(kael.tensor([1.0, 10.0], dtype=F64))
    assert x.grad.tolist() == [2.0, 20.0]
    (x[:1] * 3).backward()  # one element (not 0-d) also seeds with ones
    assert x.grad.tolist() == [5.0, 20.0]
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] has a shape of \[3\] and output\[0\] has a shape of \[2\]"):
        (x * 2).backward(kael.ones(3, dtype=F64))


def test_saved_tensor_modified_inplace_throws_naming_the_node():
    x = leaf([1.0, 2.0])
    y = x * 2
    z = y * y  # MulBackward saves y twice
    with kael.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError) as info:
        z.sum().backward()
    assert str(info.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: expected version 0, got 1 (saved by MulBackward)")


def test_saved_tensor_modified_through_a_view_or_detach_throws():
    a = leaf([1.0, 2.0, 3.0])
    b = a.exp()  # ExpBackward saves its result
    b.detach()[::2].mul_(2.0)
    b.detach().zero_()
    with pytest.raises(RuntimeError, match=r"expected version 0, got 2 \(saved by ExpBackward\)$"):
        b.sum().backward()


def test_inplace_on_leaf_that_requires_grad_throws():
    x = leaf([1.0, 2.0])
    cases = [
        ("add_", lambda: x.add_(1.0)), ("sub_", lambda: x.sub_(1.0)), ("mul_", lambda: x.mul_(2.0)),
        ("div_", lambda: x.div_(2.0)), ("zero_", x.zero_), ("fill_", lambda: x.fill_(0.0)),
        ("copy_", lambda: x.copy_(kael.zeros(2, dtype=F64))), ("clamp_", lambda: x.clamp_(0.0, 1.0)),
    ]
    for name, call in cases:
        with pytest.raises(RuntimeError) as info:
            call()
        assert str(info.value) == f"a leaf tensor that requires grad is being used in the in-place operation {name}"
    with pytest.raises(RuntimeError, match="^a leaf tensor that requires grad is being used in the in-place operation"):
        x[0] = 5.0
    assert x.tolist() == [1.0, 2.0] and x._version == 0
    with kael.no_grad():  # optimizers and initializers write parameters this way
        x.add_(1.0)
    assert x.tolist() == [2.0, 3.0] and x._version == 1


def test_inplace_on_tensor_with_history_throws():
    x = leaf([1.0, 2.0])
    y = kael.exp(x)
    for name, call in [("add_", lambda: y.add_(1)), ("mul_", lambda: y.mul_(2)),
                       ("fill_", lambda: y.fill_(1.0)), ("clamp_", lambda: y.clamp_(max=1.0))]:
        with pytest.raises(RuntimeError) as info:
            call()
        assert str(info.value) == f"{name} is not supported on a tensor with gradient history; use the out-of-place op"
    view = x[:1]  # a view of a leaf has history too
    with pytest.raises(RuntimeError, match="^sub_ is not supported on a tensor with gradient history"):
        view.sub_(1.0)
    assert y.grad_fn.name() == "ExpBackward" and y._version == 0


def test_inplace_with_source_that_requires_grad_throws():
    x = leaf([1.0, 2.0])
    plain = kael.zeros(2, dtype=F64)
    for name, call in [("add_", lambda: plain.add_(x)), ("copy_", lambda: plain.copy_(x)),
                       ("div_", lambda: plain.div_(x * 2))]:
        with pytest.raises(RuntimeError) as info:
            call()
        assert str(info.value) == f"{name} is not supported with a source that requires grad"
    with pytest.raises(RuntimeError, match="is not supported with a source that requires grad$"):
        plain[0] = x[1]
    assert plain._version == 0
    with kael.no_grad():
        plain.add_(x)
    assert plain.tolist() == [1.0, 2.0]


def test_inference_tensors_cannot_be_saved_for_backward():
    x = kael.randn(4, requires_grad=True)
    with kael.inference_mode():
        b = x * 2
    assert b.is_inference() and not b.requires_grad and b.grad_fn is None
    with pytest.raises(RuntimeError) as info:
        (b * x).sum().backward()
    assert str(info.value) == "Inference tensors cannot be saved for backward"
    assert (b + x).requires_grad  # AddBackward saves nothing, so this one is allowed
    with pytest.raises(RuntimeError, match="do not track version counter"):
        b._version
    c = b.clone()
    assert not c.is_inference() and c._version == 0
    (c * x).sum().backward()
    assert x.grad is not None


# -- history is recorded only when needed ------------------------------------------------------------


def test_autograd_meta_is_absent_until_needed():
    t = kael.ones(3)
    assert t._meta is None
    u = t * 2 + 1
    assert u._meta is None and u.grad_fn is None and u.is_leaf and not u.requires_grad
    t.requires_grad_()
    assert t._meta is not None and t._meta.requires_grad and t._meta.grad_fn is None
    assert (t * 2)._meta.grad_fn is not None


def test_history_only_with_grad_mode_on_float_output_and_an_input_requiring_grad():
    x = kael.randn(3, requires_grad=True)
    assert (x * 2).grad_fn is not None and (x * 2).requires_grad
    with kael.no_grad():
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad
    assert (x > 0).grad_fn is None and not (x > 0).requires_grad  # bool output
    assert (kael.ones(3) + kael.ones(3)).grad_fn is None


def test_node_structure_names_edges_and_inputs():
    x = kael.randn(2, 3, requires_grad=True)
    w = kael.randn(3, dtype=F64)
    y = x * w
    node = y.grad_fn
    assert isinstance(node, FunctionNode) and isinstance(node, Node)
    assert node.name() == "MulBackward" and type(node).__name__ == "MulBackward"
    (acc, nr), constant = node.next_functions
    assert isinstance(acc, AccumulateGrad) and acc.name() == "AccumulateGrad" and nr == 0
    assert constant == (None, 0)
    assert acc.variable is x
    first, second = node.inputs
    assert isinstance(first, NodeInput)
    assert first.edge is acc and tuple(first.shape) == (2, 3) and first.dtype is kael.float32
    assert second.edge is None and tuple(second.shape) == (3,) and second.dtype is F64
    assert node.needs_input_grad == (True, False)
    assert acc.next_functions == ()
    assert "MulBackward" in repr(node)


@pytest.mark.parametrize("expr,name", [
    (lambda x: x + 1, "AddBackward"), (lambda x: x - 1, "SubBackward"), (lambda x: x * 2, "MulBackward"),
    (lambda x: x / 2, "DivBackward"), (lambda x: -x, "NegBackward"), (lambda x: x ** 2, "PowBackward"),
    (lambda x: x.exp(), "ExpBackward"), (lambda x: x.sum(), "SumBackward"), (lambda x: x @ x, "MatmulBackward"),
    (lambda x: x.view(3, 1), "ViewBackward"), (lambda x: x[1:], "SliceBackward"),
    (lambda x: x[0], "SelectBackward"), (lambda x: x[[0, 2]], "IndexBackward"), (lambda x: x.mean(), "MeanBackward"),
    (lambda x: x.t(), "TBackward"), (lambda x: x.relu(), "ReluBackward"), (lambda x: x.softmax(0), "SoftmaxBackward"),
])
def test_grad_fn_names(expr, name):
    x = kael.ones(3, requires_grad=True)
    assert expr(x).grad_fn.name() == name


def test_leaf_accumulator_is_shared_while_alive_and_held_weakly():
    x = kael.ones(2, requires_grad=True)
    a, b = x * 2, x * 3
    acc = a.grad_fn.next_functions[0][0]
    assert b.grad_fn.next_functions[0][0] is acc
    ref = weakref.ref(acc)
    del a, b, acc
    assert ref() is None  # the leaf does not keep its graph alive


def test_graph_is_freed_when_the_output_goes():
    x = kael.ones(2, requires_grad=True)
    y = (x * 2).exp().sum()
    refs = [weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])]
    del y
    assert all(r() is None for r in refs)


def test_engine_checks_each_gradient_and_names_the_node():
    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g[:1]

    class WrongDtype(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.to(F64)

    class WrongCount(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = kael.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        WrongShape.apply(x).sum().backward()
    assert str(info.value) == (
        "function WrongShapeBackward returned an invalid gradient at index 0: got shape [1] but expected shape [3]")
    with pytest.raises(RuntimeError) as info:
        WrongDtype.apply(x).sum().backward()
    assert str(info.value) == (
        "function WrongDtypeBackward returned an invalid gradient at index 0: got dtype float64 but expected "
        "dtype float32")
    with pytest.raises(RuntimeError) as info:
        WrongCount.apply(x).sum().backward()
    assert str(info.value) == "function WrongCountBackward returned an incorrect number of gradients (expected 1, got 2)"
    assert x.grad is None


def test_engine_names_the_node_when_a_backward_returns_something_that_is_not_a_tensor():
    class ReturnsList(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.tolist()

    x = kael.ones(3, requires_grad=True)
    with pytest.raises(TypeError) as info:
        ReturnsList.apply(x).sum().backward()
    assert str(info.value) == (
        "function ReturnsListBackward returned list as the gradient at index 0; expected a Tensor or None")


def test_backward_runs_without_grad_mode_and_gives_first_order_gradients():
    x = kael.ones(2, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(kael.is_grad_enabled()))
    (x * x).sum().backward()
    assert seen == [False] and kael.is_grad_enabled()
    assert x.grad.grad_fn is None and not x.grad.requires_grad
    with pytest.raises(NotImplementedError, match="first-order"):
        (x * x).sum().backward(create_graph=True)


def test_backward_from_a_root_without_grad_throws():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        kael.ones(1).backward()


# -- rml's refinements -------------------------------------------------------------------------------


class FirstOnly(Function):
    """y = a + b;  da = g;  db = None (on purpose: b's subgraph receives no gradient)"""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g, None


def test_skipped_node_still_releases_its_inputs_counts():
    x = leaf([1.0, 2.0])
    u = x * 3  # MulBackward: gets no gradient through FirstOnly
    y = FirstOnly.apply(x, u)
    acc = u.grad_fn.next_functions[0][0]
    assert count_dependencies([y.sum().grad_fn])[acc] == 2
    y.sum().backward()
    # AccumulateGrad(x) still ran: the skipped MulBackward released its count.
    assert x.grad.tolist() == [1.0, 1.0]


def test_accumulate_grad_clones_the_first_gradient():
    a = kael.zeros(3, requires_grad=True)
    b = kael.zeros(3, requires_grad=True)
    seed = kael.tensor([1.0, 2.0, 3.0])
    (a + b).backward(seed)  # AddBackward hands the same tensor to both leaves
    assert a.grad.tolist() == b.grad.tolist() == [1.0, 2.0, 3.0]
    assert a.grad is not b.grad and a.grad is not seed
    assert a.grad.untyped_storage() is not b.grad.untyped_storage()
    assert a.grad.untyped_storage() is not seed.untyped_storage()
    a.grad.mul_(10.0)  # the owner may change .grad in place
    assert b.grad.tolist() == [1.0, 2.0, 3.0] and seed.tolist() == [1.0, 2.0, 3.0]


def test_gradients_accumulate_across_calls_until_zeroed():
    x = leaf([1.0, 2.0])
    for _ in range(3):
        (x * x).sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]
    x.grad.zero_()
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_accumulate_grad_runs_leaf_hooks_before_storing():
    x = leaf([1.0, 2.0])
    calls = []

    def hook(g):
        calls.append(g.tolist())
        return g * 10

    handle = x.register_hook(hook)
    (x * 1).sum().backward()
    assert calls == [[1.0, 1.0]] and x.grad.tolist() == [10.0, 10.0]
    handle.remove()
    (x * 1).sum().backward()
    assert x.grad.tolist() == [11.0, 11.0] and len(calls) == 1


def test_released_node_drops_its_saved_tensors():
    x = leaf([1.0, 2.0])
    y = x * x
    node = y.grad_fn
    assert node._saved_self.tolist() == [1.0, 2.0] and not node.released
    y.sum().backward()
    assert node.released
    with pytest.raises(RuntimeError, match="specify retain_graph=true"):
        node._saved_self
    z = x * x
    z.sum().backward(retain_graph=True)
    assert z.grad_fn._saved_other.tolist() == [1.0, 2.0] and not z.grad_fn.released


# -- retain_grad, hooks, inputs=, autograd.grad ---------------------------------------------------------


def test_retain_grad_keeps_a_non_leaf_gradient():
    x = leaf([1.0, 2.0])
    h = x * 3
    assert not h.retains_grad
    h.retain_grad()
    assert h.retains_grad and h.grad is None
    (h * h).sum().backward()
    assert h.grad.tolist() == [6.0, 12.0]
    assert x.grad.tolist() == [18.0, 36.0]
    g = x * 1
    (g * 2).sum().backward()
    assert g.grad is None  # without retain_grad a non-leaf keeps no gradient
    x.retain_grad()  # a no-op on leaves
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        kael.ones(2).retain_grad()


def test_tensor_hook_replaces_the_gradient_of_a_non_leaf():
    x = leaf([1.0, 2.0])
    h = x * 2
    seen = []
    h.register_hook(lambda g: seen.append(g.tolist()))  # returning None keeps the gradient
    h.register_hook(lambda g: g * 10)
    h.sum().backward()
    assert seen == [[1.0, 1.0]]
    assert x.grad.tolist() == [20.0, 20.0]


def test_retained_gradient_is_the_one_after_tensor_hooks():
    # PyTorch: a retained .grad is populated after the tensor's hooks, whatever the order.
    x = leaf([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g * 10)
    h.sum().backward()
    assert h.grad.tolist() == [10.0, 10.0] and x.grad.tolist() == [20.0, 20.0]


def test_register_hook_needs_requires_grad():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        kael.ones(2).register_hook(lambda g: g)


def test_node_pre_hook_sees_and_may_replace_the_incoming_gradient():
    x = leaf([1.0, 2.0])
    y = x * 3
    got = []

    def pre(grads):
        got.append([g.tolist() for g in grads])
        return (grads[0] * 0 + 1,)

    handle = y.grad_fn.register_prehook(pre)
    (y * 5).sum().backward()
    assert got == [[[5.0, 5.0]]]
    assert x.grad.tolist() == [3.0, 3.0]
    handle.remove()
    (x * 3 * 5).sum().backward()
    assert x.grad.tolist() == [18.0, 18.0]


def test_node_post_hook_sees_inputs_and_outputs_gradients():
    x = leaf([1.0, 2.0])
    y = x * 3
    got = []
    y.grad_fn.register_hook(lambda gin, gout: got.append((gin[0].tolist(), gout[0].tolist())))
    y.sum().backward()
    assert got == [([3.0, 3.0], [1.0, 1.0])]


def test_backward_with_inputs_accumulates_only_into_them():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    (x * w).sum().backward(inputs=[x])
    assert x.grad.tolist() == [3.0, 4.0] and w.grad is None
    (x * w).sum().backward(inputs=w)
    assert w.grad.tolist() == [1.0, 2.0] and x.grad.tolist() == [3.0, 4.0]
    h = x * w
    (h * h).sum().backward(inputs=[h])
    assert h.grad.tolist() == [6.0, 16.0]
    assert x.grad.tolist() == [3.0, 4.0] and w.grad.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * w).sum().backward(inputs=[])
    kael.autograd.backward([(x * 2).sum()], inputs=[x])
    assert x.grad.tolist() == [5.0, 6.0]


def test_autograd_grad_returns_gradients_without_touching_grad():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    y = x * w
    z = (y * y).sum()
    gy, gx = kael.autograd.grad(z, [y, x])
    assert gy.tolist() == [6.0, 16.0] and gx.tolist() == [18.0, 64.0]
    assert x.grad is None and w.grad is None and y.grad is None
    (g,) = kael.autograd.grad((x * w).sum(), x)
    assert g.tolist() == [3.0, 4.0] and x.grad is None
    (g,) = kael.autograd.grad(x * 2, [x], grad_outputs=[kael.tensor([1.0, -1.0], dtype=F64)])
    assert g.tolist() == [2.0, -2.0]
    z2 = (x * x).sum()
    kael.autograd.grad(z2, [x], retain_graph=True)
    assert kael.autograd.grad(z2, [x])[0].tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="second time"):
        kael.autograd.grad(z2, [x])


def test_autograd_grad_unused_input():
    x = leaf([1.0])
    w = leaf([2.0])
    with pytest.raises(RuntimeError, match=r"at index 0 appears to not have been used in the graph"):
        kael.autograd.grad((x * 2).sum(), [w])
    gw, gx = kael.autograd.grad((x * 2).sum(), [w, x], allow_unused=True)
    assert gw is None and gx.tolist() == [2.0]


def test_autograd_backward_on_several_roots():
    x = leaf([1.0, 2.0])
    kael.autograd.backward([(x * 2).sum(), (x * x).sum()])
    assert x.grad.tolist() == [4.0, 6.0]
    kael.autograd.backward([x * 1, x * 2], [kael.ones(2, dtype=F64), kael.ones(2, dtype=F64)])
    assert x.grad.tolist() == [7.0, 9.0]


# -- grad modes ------------------------------------------------------------------------------------------


def test_grad_modes_nest_and_restore():
    assert kael.is_grad_enabled()
    with kael.no_grad():
        assert not kael.is_grad_enabled()
        with kael.enable_grad():
            assert kael.is_grad_enabled()
            with kael.set_grad_enabled(False):
                assert not kael.is_grad_enabled()
            assert kael.is_grad_enabled()
        assert not kael.is_grad_enabled()
        with kael.no_grad():
            assert not kael.is_grad_enabled()
        assert not kael.is_grad_enabled()
    assert kael.is_grad_enabled()
    with kael.set_grad_enabled(True):
        assert kael.is_grad_enabled()
    with kael.inference_mode():
        assert kael.is_inference_mode_enabled() and not kael.is_grad_enabled()
        with kael.inference_mode(False):
            assert not kael.is_inference_mode_enabled()
        assert kael.is_inference_mode_enabled()
    assert not kael.is_inference_mode_enabled() and kael.is_grad_enabled()


def test_set_grad_enabled_as_a_call_switches_right_away():
    kael.set_grad_enabled(False)
    assert not kael.is_grad_enabled()
    kael.set_grad_enabled(True)
    assert kael.is_grad_enabled()


def test_grad_modes_as_decorators():
    x = kael.ones(2, requires_grad=True)

    @kael.no_grad()
    def double(t):
        assert not kael.is_grad_enabled()
        return t * 2

    @kael.enable_grad()
    def triple(t):
        return t * 3

    @kael.set_grad_enabled(False)
    def quad(t):
        return t * 4

    @kael.inference_mode()
    def infer(t):
        return t * 5

    assert kael.is_grad_enabled()
    assert double(x).grad_fn is None and kael.is_grad_enabled()
    with kael.no_grad():
        assert triple(x).grad_fn is not None
    assert quad(x).grad_fn is None and kael.is_grad_enabled()
    assert infer(x).is_inference() and not kael.is_inference_mode_enabled()


def test_grad_mode_is_thread_local():
    if sys.platform == "emscripten":
        pytest.skip("Pyodide cannot start threads")
    seen = []
    with kael.no_grad():
        thread = threading.Thread(target=lambda: seen.append(kael.is_grad_enabled()))
        thread.start()
        thread.join()
        assert not kael.is_grad_enabled()
    assert seen == [True]


def test_no_grad_versus_inference_mode():
    x = kael.randn(4, requires_grad=True)
    with kael.no_grad():
        a = x * 2
    with kael.inference_mode():
        b = x * 2
    assert (a.requires_grad, a.is_inference()) == (False, False)
    assert (b.requires_grad, b.is_inference()) == (False, True)
    assert a._version == 0
    (a * x).sum().backward()  # a no_grad result may join a later graph
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (b * x).sum().backward()


# -- user-defined Function -----------------------------------------------------------------------------


class ScaledExp(Function):
    """y = exp(a) * k (k a plain number);  da = g * y * ... saved output, version-checked"""

    @staticmethod
    def forward(ctx, a, k):
        ctx.grad_mode_in_forward = kael.is_grad_enabled()
        ctx.k = k
        y = a.exp() * k
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y, None


def test_function_records_one_node_named_after_it():
    a = kael.randn(3, dtype=F64, requires_grad=True)
    y = ScaledExp.apply(a, 2.0)
    node = y.grad_fn
    assert node.name() == "ScaledExpBackward" and type(node).__name__ == "ScaledExpBackward"
    assert node.grad_mode_in_forward is False  # forward runs under no_grad: its inside records nothing
    assert node.next_functions == ((a.grad_fn or node.next_functions[0][0], 0),)
    assert isinstance(node.next_functions[0][0], AccumulateGrad)
    assert len(node.saved_tensors) == 1 and node.k == 2.0
    y.sum().backward()
    assert all(abs(g - 2 * v) < 1e-12 for g, v in zip(a.grad.tolist(), a.exp().tolist()))
    assert gradcheck(lambda t: ScaledExp.apply(t, 3.0), [a])


def test_function_without_inputs_requiring_grad_records_nothing():
    y = ScaledExp.apply(kael.ones(2), 2.0)
    assert y.grad_fn is None and not y.requires_grad
    with kael.no_grad():
        assert ScaledExp.apply(kael.ones(2, requires_grad=True), 2.0).grad_fn is None


def test_function_needs_input_grad():
    seen = []

    class Pair(Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            seen.append(tuple(ctx.needs_input_grad))
            return a * b * scale

        @staticmethod
        def backward(ctx, g):
            seen.append(tuple(ctx.needs_input_grad))
            return g, None, None

    a = kael.ones(2, requires_grad=True)
    b = kael.ones(2)
    Pair.apply(a, b, 2.0).sum().backward()
    assert seen == [(True, False, False), (True, False, False)]
    seen.clear()
    Pair.apply(b, a, 2.0)
    assert seen == [(False, True, False)]


def test_function_saved_tensors_are_version_checked():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * g * a

    a = kael.ones(3, requires_grad=True)
    y = Square.apply(a)
    with kael.no_grad():
        a.mul_(2.0)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: expected version 0, got 1 (saved by SquareBackward)")


def test_function_returning_an_input_gives_an_alias():
    class Identity(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    a = kael.ones(2, requires_grad=True)
    y = Identity.apply(a)
    assert y is not a and a.is_leaf and a.grad_fn is None
    assert y.grad_fn.name() == "IdentityBackward" and y.untyped_storage() is a.untyped_storage()
    y.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


# -- gradcheck itself ------------------------------------------------------------------------------------


class WrongDouble(Function):
    """y = a * b, with a wrong gradient for b at its element [1, 0]."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        gb = g * a
        bump = kael.zeros(2, 2, dtype=F64)
        bump[1, 0] = 1.0
        return g * b, gb + bump


def test_gradcheck_failure_names_input_and_element():
    g = kael.Generator(4)
    a = kael.randn(2, 2, dtype=F64, generator=g, requires_grad=True)
    b = kael.randn(2, 2, dtype=F64, generator=g, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongDouble.apply, [a, b])
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for input 1 at element [1, 0]: analytic "), message
    assert re.search(r"numeric -?\d", message)
    assert isinstance(info.value, RuntimeError)
    assert gradcheck(WrongDouble.apply, [a, b], raise_exception=False) is False
    assert gradcheck(lambda x, y: x * y, [a, b]) is True


def test_gradcheck_uses_fixed_weights_and_needs_an_input_requiring_grad():
    from kael.autograd.gradcheck import reduction_weights

    w = reduction_weights(5, 0)
    assert w == reduction_weights(5, 0) and all(-1.0 <= v < 1.0 for v in w)
    import random

    rng = random.Random(0)  # the documented generator: raw 32-bit draws, w = bits / 2**31 - 1
    assert w == [rng.getrandbits(32) / 2**31 - 1.0 for _ in range(5)]
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda t: t * 2, [kael.ones(2, dtype=F64)])
    with pytest.warns(UserWarning, match="not float64"):
        gradcheck(lambda t: t * 2, [kael.ones(2, requires_grad=True)], atol=1e-2, rtol=1e-2, eps=1e-2)


def test_gradcheck_tolerance_rule():
    class Off(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            return g * 1.001  # 0.1% off

    a = kael.ones(3, dtype=F64, requires_grad=True)
    assert gradcheck(Off.apply, [a], rtol=1e-2, atol=0.0)
    assert not gradcheck(Off.apply, [a], rtol=1e-4, atol=0.0, raise_exception=False)
    assert gradcheck(Off.apply, [a], rtol=0.0, atol=1e-2)


# -- misc tensor autograd API -------------------------------------------------------------------------


def test_requires_grad_flag_rules_and_detach():
    x = kael.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    d = y.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    y.detach_()
    assert y.grad_fn is None and not y.requires_grad
    x.requires_grad = False
    assert not x.requires_grad


def test_grad_setter_checks_shape_and_dtype():
    x = kael.ones(2, requires_grad=True)
    x.grad = kael.zeros(2)
    with pytest.raises(RuntimeError, match=r"different size: \[3\] vs \[2\]"):
        x.grad = kael.zeros(3)
    with pytest.raises(RuntimeError, match="different type: float64 vs float32"):
        x.grad = kael.zeros(2, dtype=F64)


def test_autograd_grad_runs_leaf_hooks_and_fills_retained_grads_as_pytorch_does():
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (gx,) = kael.autograd.grad((x * x).sum(), x)
    assert gx.tolist() == [20.0, 40.0]  # PyTorch 2.13: tensor([20., 40.])
    assert x.grad is None

    a = x * 2
    a.retain_grad()
    a.register_hook(lambda g: g * 100)
    (ga,) = kael.autograd.grad((a * a).sum(), a)
    assert ga.tolist() == [400.0, 800.0]
    assert a.grad.tolist() == [400.0, 800.0]  # retain_grad is honoured inside autograd.grad too
    assert x.grad is None


def test_pre_hooks_run_in_pytorchs_order_and_a_target_is_captured_before_the_nodes_own():
    # torchdiff seed 3301: a grad_fn pre-hook doubled the gradient backward(inputs=[y]) kept.
    # PyTorch: the tensor's hooks, then retain_grad, then the node's pre-hooks; a target's
    # gradient is taken after its tensor's hooks and before its node's pre-hooks (the values are
    # PyTorch 2.13's).
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda g: (g[0] * 10,))  # registered first, runs last
    y.register_hook(lambda g: g + 1)
    y.retain_grad()
    y.sum().backward()
    assert y.grad.tolist() == [2.0, 2.0] and x.grad.tolist() == [60.0, 60.0]
    z = x * 3
    z.grad_fn.register_prehook(lambda g: (g[0] * 10,))
    z.register_hook(lambda g: g + 1)
    assert kael.autograd.grad((z * 2).sum(), [z])[0].tolist() == [3.0, 3.0]
    w = x * 3
    w.grad_fn.register_prehook(lambda g: (g[0] * 2,))
    w.sum().backward(inputs=[w])
    assert w.grad.tolist() == [1.0, 1.0]
