"""Public tests of checkpoint: each test runs a small segment through your checkpoint, counts what
autograd saves (with saved_tensors_hooks) and compares the gradients with a plain run.
kael's own kael.utils.checkpoint is switched off while the tests call yours."""

import kael
import kael.utils
from kael.autograd.graph import saved_tensors_hooks

_kael_checkpoint = kael.utils.checkpoint_module.Checkpoint


def _refuse(*args, **kwargs):
    raise RuntimeError("this exercise asks for your own checkpoint: kael.utils.checkpoint was called")


class _Guard:
    """Switch kael's own Checkpoint off; record the shape of every tensor saved for backward."""

    def __enter__(self):
        self.saved = _kael_checkpoint.forward, _kael_checkpoint.backward
        _kael_checkpoint.forward = _kael_checkpoint.backward = staticmethod(_refuse)
        self.packed = []
        self.hooks = saved_tensors_hooks(self._pack, lambda t: t)
        self.hooks.__enter__()
        return self

    def _pack(self, t):
        self.packed.append(list(t.shape))
        return t

    def __exit__(self, *exc):
        self.hooks.__exit__(*exc)
        _kael_checkpoint.forward, _kael_checkpoint.backward = self.saved
        return False


def _segment(x, w):
    return ((x @ w).tanh() * 2.0).sin()


def _leaves():
    x = kael.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    w = kael.tensor([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]], requires_grad=True)
    return x, w


def test_gradients_equal_plain_run(m):
    """checkpoint(segment, x, w).sum().backward(): x.grad and w.grad as without checkpointing"""
    x, w = _leaves()
    with _Guard():
        m.checkpoint(_segment, x, w).sum().backward()
    return [x.grad.tolist(), w.grad.tolist()]


test_gradients_equal_plain_run.expected = [
    [[-0.025473, -0.009314, 0.009808], [0.272400, -0.367549, 0.642559]],
    [[2.695418, 0.631612], [0.539438, 0.198146], [-1.078877, -0.396293]],
]
test_gradients_equal_plain_run.atol = 1e-5


def test_forward_saves_only_the_inputs(m):
    """the shapes saved for backward while y = checkpoint(segment, x, w) runs: x's and w's only"""
    x, w = _leaves()
    with _Guard() as guard:
        m.checkpoint(_segment, x, w)
    return guard.packed


test_forward_saves_only_the_inputs.expected = [[2, 3], [3, 2]]


def test_node_and_edges(m):
    """y.grad_fn.name() and the names of its next_functions: one node, straight to the leaves"""
    x, w = _leaves()
    with _Guard():
        y = m.checkpoint(_segment, x, w)
    return [y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions if n is not None]]


test_node_and_edges.expected = ["CheckpointBackward", ["AccumulateGrad", "AccumulateGrad"]]


def test_segment_runs_twice(m):
    """grad mode inside the segment: off in the forward call, on in the recomputation"""
    modes = []

    def segment(x, w):
        modes.append(kael.is_grad_enabled())
        return _segment(x, w)

    x, w = _leaves()
    with _Guard():
        y = m.checkpoint(segment, x, w)
        before = list(modes)
        y.sum().backward()
    return [before, modes]


test_segment_runs_twice.expected = [[False], [False, True]]


def test_constant_input_gets_no_gradient(m):
    """checkpoint(segment, x, c) with c a constant: x.grad as usual, c.grad None"""
    x, w = _leaves()
    c = w.detach()
    with _Guard():
        m.checkpoint(_segment, x, c).sum().backward()
    return [x.grad.tolist(), c.grad is None]


test_constant_input_gets_no_gradient.expected = [
    [[-0.025473, -0.009314, 0.009808], [0.272400, -0.367549, 0.642559]],
    True,
]
test_constant_input_gets_no_gradient.atol = 1e-5


def test_upstream_gradient_is_used(m):
    """(checkpoint(segment, x) * coef).sum(): the gradient g reaching the node is not all ones"""
    x = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    coef = kael.tensor([1.0, -2.0, 3.0])
    with _Guard():
        (m.checkpoint(lambda a: a.sin() * a, x) * coef).sum().backward()
    return x.grad.tolist()


test_upstream_gradient_is_used.expected = [0.918217, 2.76355, 0.231011]


def test_constant_first_input(m):
    """checkpoint(segment, c, w) with c a constant first: (None, None, w's gradient), so w.grad as
    in a plain run and c.grad None"""
    x, w = _leaves()
    c = x.detach()
    with _Guard():
        m.checkpoint(_segment, c, w).sum().backward()
    return [c.grad is None, w.grad.tolist()]


test_constant_first_input.expected = [True, [[2.69542, 0.631612], [0.539438, 0.198146], [-1.07888, -0.396293]]]
test_constant_first_input.atol = 1e-5
