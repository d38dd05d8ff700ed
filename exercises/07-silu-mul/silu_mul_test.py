"""Public tests of silu_mul: forward values, gradients, gradcheck and what the node saved."""

import kael


def _leaf(values):
    return kael.tensor(values, dtype=kael.float64, requires_grad=True)


def test_forward(m):
    """silu_mul(gate, up) for gate = [-1, 0, 2], up = [1, 2, 3]"""
    return m.silu_mul(_leaf([-1.0, 0.0, 2.0]), _leaf([1.0, 2.0, 3.0])).tolist()


test_forward.expected = [-0.2689414213699951, 0.0, 5.284782467867294]


def test_backward(m):
    """silu_mul(gate, up).sum().backward(): [gate.grad, up.grad]"""
    gate, up = _leaf([-1.0, 0.0, 2.0]), _leaf([1.0, 2.0, 3.0])
    m.silu_mul(gate, up).sum().backward()
    return [gate.grad.tolist(), up.grad.tolist()]


test_backward.expected = [[0.07232948812851325, 1.0, 3.2723527463546866], [-0.2689414213699951, 0.0, 1.7615941559557646]]


def test_node_name(m):
    """silu_mul(gate, up).grad_fn.name()"""
    return m.silu_mul(_leaf([1.0]), _leaf([1.0])).grad_fn.name()


test_node_name.expected = 'SiluMulBackward'


def test_gradcheck(m):
    """kael.autograd.gradcheck(SiluMul.apply, (g, u)) on float64 [4, 8] inputs, as in the notebook"""
    kael.manual_seed(0)
    g = kael.randn(4, 8, dtype=kael.float64, requires_grad=True)
    u = kael.randn(4, 8, dtype=kael.float64, requires_grad=True)
    return kael.autograd.gradcheck(m.SiluMul.apply, (g, u))


test_gradcheck.expected = True


def test_saves_only_the_inputs(m):
    """how many tensors saved_tensors_hooks sees packed, and their bytes, for silu_mul on [4, 8] float32"""
    sizes = []

    def pack(t):
        sizes.append(t.numel() * t.element_size())
        return t

    gate = kael.ones(4, 8, requires_grad=True)
    up = kael.ones(4, 8, requires_grad=True)
    with kael.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        m.silu_mul(gate, up)
    return sizes


test_saves_only_the_inputs.expected = [128, 128]
