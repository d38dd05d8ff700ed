"""Hidden tests of softmax_cross_entropy."""

import kael
import kael.nn.functional as F

RTOL = 1e-4
ATOL = 1e-6


def _pair(m, x, t):
    """Loss and gradient from your Function and from kael's cross_entropy, on copies of x."""
    a = x.detach().requires_grad_()
    b = x.detach().requires_grad_()
    mine = m.softmax_cross_entropy(a, t)
    mine.backward()
    ref = F.cross_entropy(b, t)
    ref.backward()
    return [mine.item(), ref.item(), a.grad.tolist(), b.grad.tolist()]


def test_matches_kael_cross_entropy_float64(m):
    """a batch of 8 rows of 5 float64 logits: loss and gradient equal kael's cross_entropy"""
    kael.manual_seed(3)
    x = kael.randn(8, 5, dtype=kael.float64) * 3
    t = kael.randint(0, 5, (8,))
    mine_loss, ref_loss, mine_grad, ref_grad = _pair(m, x, t)
    return [mine_loss, mine_grad, mine_loss - ref_loss]


def test_gradcheck(m):
    """kael.autograd.gradcheck(..., raise_exception=False) on float64 logits [4, 3]"""
    kael.manual_seed(4)
    x = kael.randn(4, 3, dtype=kael.float64, requires_grad=True)
    t = kael.tensor([0, 2, 1, 1])
    return kael.autograd.gradcheck(lambda a: m.softmax_cross_entropy(a, t), (x,), raise_exception=False)


def test_batch_of_one(m):
    """a single row [0.5, -0.5, 2.0] with target 0"""
    x = kael.tensor([[0.5, -0.5, 2.0]], requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.tensor([0]))
    loss.backward()
    return [loss.item(), x.grad.tolist()]


def test_gradient_is_divided_by_batch_size(m):
    """32 identical rows [0, 1]: each row's gradient is (softmax - onehot) / 32"""
    x = kael.tensor([[0.0, 1.0]] * 32, requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.zeros(32, dtype=kael.int64))
    loss.backward()
    return [loss.item(), x.grad.tolist()[0], x.grad.tolist()[31]]


def test_very_negative_and_positive_logits(m):
    """x = [[-500, 500, 0], [800, 799, -800]], t = [0, 1]: finite loss and gradient"""
    x = kael.tensor([[-500.0, 500.0, 0.0], [800.0, 799.0, -800.0]], requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.tensor([0, 1]))
    loss.backward()
    return [loss.item(), x.grad.tolist()]


def test_loss_used_twice(m):
    """(loss + 2 * loss).backward(): the upstream gradient 3 reaches your backward"""
    kael.manual_seed(5)
    x = kael.randn(3, 4, requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.tensor([3, 0, 1]))
    (loss + 2 * loss).backward()
    return x.grad.tolist()


def test_rows_of_gradient_sum_to_zero(m):
    """each row of the gradient sums to 0 (softmax sums to 1, onehot sums to 1)"""
    kael.manual_seed(6)
    x = kael.randn(6, 7, requires_grad=True)
    m.softmax_cross_entropy(x, kael.randint(0, 7, (6,))).backward()
    return [abs(s) < 1e-6 for s in x.grad.sum(dim=1).tolist()]


def test_target_gets_no_gradient(m):
    """loss.grad_fn.apply(1.0): one gradient per input, None for the integer target"""
    x = kael.tensor([[1.0, 2.0], [3.0, 1.0]], requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.tensor([1, 0]))
    grads = loss.grad_fn.apply(kael.tensor(1.0))
    return [len(grads), grads[0].tolist(), grads[1] is None]


def test_inside_a_network(m):
    """Linear(3, 4) then your loss: the weight's gradient equals the one from kael's cross_entropy"""
    kael.manual_seed(7)
    layer = kael.nn.Linear(3, 4)
    x = kael.randn(5, 3)
    t = kael.randint(0, 4, (5,))
    m.softmax_cross_entropy(layer(x), t).backward()
    mine = layer.weight.grad.tolist()
    layer.zero_grad()
    F.cross_entropy(layer(x), t).backward()
    theirs = layer.weight.grad.tolist()
    return [mine, [[abs(a - b) < 1e-5 for a, b in zip(r1, r2)] for r1, r2 in zip(mine, theirs)]]
