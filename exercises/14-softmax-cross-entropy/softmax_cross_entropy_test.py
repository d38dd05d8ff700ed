"""Public tests of softmax_cross_entropy: each test builds logits, calls your function, runs
backward and returns the loss and the gradient as lists; the expected value is written below."""

import kael

ATOL = 1e-5


def _run(m, rows, target, scale=1.0):
    x = kael.tensor(rows, requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.tensor(target))
    (loss * scale).backward()
    return [loss.item(), x.grad.tolist()]


def test_loss_and_gradient(m):
    """softmax_cross_entropy(x, t) for x = [[1, 2, 0.5], [0.1, -1, 3]], t = [1, 2], then backward"""
    return _run(m, [[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], [1, 2])


test_loss_and_gradient.expected = [0.26757, [[0.11561, -0.18573, 0.07012], [0.02563, 0.00853, -0.03416]]]


def test_node_name(m):
    """loss.grad_fn.name(): the node of your Function"""
    x = kael.tensor([[1.0, 2.0]], requires_grad=True)
    return m.softmax_cross_entropy(x, kael.tensor([0])).grad_fn.name()


test_node_name.expected = "SoftmaxCrossEntropyBackward"


def test_gradient_is_softmax_minus_onehot(m):
    """one row x = [0, 0, 0, 0], t = [3]: the gradient is [1/4, 1/4, 1/4, -3/4]"""
    return _run(m, [[0.0, 0.0, 0.0, 0.0]], [3])


test_gradient_is_softmax_minus_onehot.expected = [1.38629, [[0.25, 0.25, 0.25, -0.75]]]


def test_large_logits_stay_finite(m):
    """x = [[1000, 0], [0, -1000]], t = [1, 0]: no inf, no nan"""
    return _run(m, [[1000.0, 0.0], [0.0, -1000.0]], [1, 0])


test_large_logits_stay_finite.expected = [500.0, [[0.5, -0.5], [0.0, 0.0]]]


def test_upstream_gradient(m):
    """(3 * loss).backward(): the gradient is three times softmax(x) - onehot(t), over N"""
    return _run(m, [[2.0, 0.0], [0.0, 2.0]], [0, 0], scale=3.0)


test_upstream_gradient.expected = [1.126928, [[-0.178804, 0.178804], [-1.321196, 1.321196]]]


def test_second_backward_with_retain_graph(m):
    """backward twice with retain_graph=True: the second gives the same gradient again (backward
    must not change its saved probabilities in place), so x.grad doubles"""
    x = kael.tensor([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]], dtype=kael.float64, requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.tensor([2, 0]))
    loss.backward(retain_graph=True)
    first = x.grad.tolist()
    loss.backward()
    return [first, x.grad.tolist()]


test_second_backward_with_retain_graph.expected = [[[0.115612, 0.314266, -0.429878], [-0.491426, 0.0233063, 0.46812]], [[0.231224, 0.628532, -0.859756], [-0.982852, 0.0466126, 0.93624]]]


def test_saves_with_save_for_backward(m):
    """the tensors saved_tensors_hooks sees packed while the loss of x [2, 3] is built (the [2, 3]
    probabilities and the [2] targets, in either order), and the names of the node's attributes
    that hold a tensor (none: a tensor as a plain ctx attribute escapes the hooks)"""
    x = kael.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], requires_grad=True)
    packed = []
    with kael.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        loss = m.softmax_cross_entropy(x, kael.tensor([1, 2]))
    kept = sorted(k for k, v in vars(loss.grad_fn).items()
                  if isinstance(v, kael.Tensor) or isinstance(v, (tuple, list)) and any(isinstance(t, kael.Tensor) for t in v))
    return [sorted([list(t.shape), str(t.dtype)] for t in packed), kept]


test_saves_with_save_for_backward.expected = [[[[2], 'kael.int64'], [[2, 3], 'kael.float32']], []]
