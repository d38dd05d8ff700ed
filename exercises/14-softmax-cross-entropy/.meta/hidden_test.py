"""Hidden tests of softmax_cross_entropy: named regression cases, then seeded generated ones."""

import random

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


# -- retain_graph, dtypes and seeded generated cases -------------------------------------------------


def test_two_losses_share_one_forward(m):
    """(loss * 2 + loss * 3).backward(): the node's backward runs once with g = 5"""
    x = kael.tensor([[0.2, -0.4, 1.0, 0.0]], dtype=kael.float64, requires_grad=True)
    loss = m.softmax_cross_entropy(x, kael.tensor([1]))
    (loss * 2 + loss * 3).backward()
    return x.grad.tolist()


def _seeded_logits(rng, n, c, dtype):
    """Seeded [n, c] logits: ordinary ones, huge ones (+-1e4: a real model's unnormalised scores
    can be large), and now and then a transposed view."""
    scale = rng.choice([1.0, 1.0, 30.0, 1e4])
    values = [round(rng.uniform(-1, 1) * scale, 3) for _ in range(n * c)]
    if rng.random() < 0.3:
        return kael.tensor(values, dtype=dtype).reshape(c, n).t().detach().requires_grad_()
    return kael.tensor(values, dtype=dtype).reshape(n, c).requires_grad_()


def _seeded_batch(rng):
    """Logits of a seeded [n, c] batch (1-6 rows, 2-7 classes, float32 or float64) and targets."""
    dtype = rng.choice([kael.float32, kael.float64])
    n, c = rng.randint(1, 6), rng.randint(2, 7)
    return _seeded_logits(rng, n, c, dtype), kael.tensor([rng.randrange(c) for _ in range(n)])


def _forward_packing(m, x, target):
    """The loss, and the tensors save_for_backward packed (as saved_tensors_hooks see them)."""
    packed = []
    with kael.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        loss = m.softmax_cross_entropy(x, target)
    return loss, packed


def test_generated_batches(m):
    """softmax_cross_entropy on 24 seeded batches (1-6 rows, 2-7 classes, float32 and float64,
    logits up to +-1e4, transposed views): loss, its dtype, and the gradient with its dtype"""
    rng = random.Random(1414)
    out = []
    for _ in range(24):
        x, target = _seeded_batch(rng)
        loss = m.softmax_cross_entropy(x, target)
        (loss * rng.choice([1.0, 0.5, -2.0])).backward()
        out.append([str(loss.dtype), loss.item(), str(x.grad.dtype), x.grad.tolist()])
    return out


test_generated_batches.rtol = 1e-4
test_generated_batches.atol = 1e-5


def test_saved_set_on_generated_batches(m):
    """softmax_cross_entropy on 8 seeded batches: what save_for_backward packs (saved_tensors_hooks
    see the [n, c] probabilities and the [n] targets, in either order) and no tensor kept as a
    plain ctx attribute (it would escape the version check and the hooks)"""
    rng = random.Random(1441)
    out = []
    for _ in range(8):
        x, target = _seeded_batch(rng)
        loss, packed = _forward_packing(m, x, target)
        kept = sorted(k for k, v in vars(loss.grad_fn).items()
                      if isinstance(v, kael.Tensor) or isinstance(v, (tuple, list)) and any(isinstance(t, kael.Tensor) for t in v))
        out.append([sorted([list(t.shape), str(t.dtype)] for t in packed), kept])
    return out


def test_saves_the_probabilities_not_the_logits(m):
    """softmax_cross_entropy on 8 seeded batches: the values save_for_backward packs (the
    softmax probabilities and the targets, read as the forward returns), then the logits are
    changed in place under no_grad and backward runs: it still gives the gradient at the logits
    the forward saw (saved logits would fail the version check)"""
    rng = random.Random(1442)
    out = []
    for _ in range(8):
        x, target = _seeded_batch(rng)
        loss, packed = _forward_packing(m, x, target)
        saved = sorted(([t.ndim, list(t.shape), t.dtype.name, t.tolist()] for t in packed), key=lambda s: s[:2])
        with kael.no_grad():
            x.mul_(-2.0).add_(0.5)  # after the forward: the backward must not see this
        (loss * rng.choice([1.0, 0.5, -2.0])).backward()
        out.append([saved, loss.item(), x.grad.tolist()])
    return out


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("softmax-cross-entropy")
MIXES = ("ordinary", "zeros", "ties", "near ties", "huge", "tiny")


def _batch(d):
    """logits [N, C] (N 1-4, C 1-5) in any layout, float32 or float64, a finite value mix; int64
    targets [N] in [0, C) with repeats, now and then a stepped view."""
    n, c = d.integer(1, 4), d.integer(1, 5)
    d.label("N 1" if n == 1 else "N n")
    d.label("C 1" if c == 1 else "C n")
    logits = d.tensor((n, c), d.dtype(), mix=d.choice(MIXES), requires_grad=True)
    values = [d.integer(0, c - 1) for _ in range(n)]
    if d.chance(0.25):
        d.label("target a stepped view")
        target = kael.tensor([v for v in values for _ in (0, 1)], dtype=kael.int64)[::2]
    else:
        target = kael.tensor(values, dtype=kael.int64)
    if len(set(values)) < len(values):
        d.label("target repeats")
    d.inputs.append(f"target {values}")
    return logits, target


def _backward_of(loss, g, logits):
    """loss.backward(g): the logits' gradient is in the step's effects."""
    loss.backward(g)


@DOMAIN.case("softmax_cross_entropy", cases=300, classes=(
    "N 1", "N n", "C 1", "C n", "dtype float32", "dtype float64",
    "layout contiguous", "layout transposed", "layout stepped", "layout expanded",
    "values ordinary", "values zeros", "values ties", "values near ties", "values huge", "values tiny",
    "target repeats", "target a stepped view", "two losses first", "backward twice"))
def softmax_cross_entropy_case(d, m):
    """SoftmaxCrossEntropy(logits, target): forward, backward through the engine with a drawn
    upstream gradient and directly with a ctx the test built; a fifth of the cases build two
    losses of different shapes first and backpropagate them in reverse order."""
    logits, target = _batch(d)
    if d.chance(0.2):
        d.label("two losses first")
        other, other_target = _batch(d)
        first = d.call("SoftmaxCrossEntropy.apply (first)", m.SoftmaxCrossEntropy.apply, logits, target,
                       scale=d.magnitude(logits))
        second = d.call("SoftmaxCrossEntropy.apply (second)", m.SoftmaxCrossEntropy.apply, other, other_target,
                        scale=d.magnitude(other))
        for what, loss, x in (("second", second, other), ("first", first, logits)):
            if isinstance(loss, kael.Tensor) and loss.requires_grad:
                d.call(f"backward of the {what}", _backward_of, loss, d.like(loss, mix="ordinary"), x)
        return
    loss = d.function_steps("SoftmaxCrossEntropy", m.SoftmaxCrossEntropy, [logits, target],
                            scale=d.magnitude(logits))
    d.call("what the forward saves", _saved_set, m, logits, target)
    if isinstance(loss, kael.Tensor) and loss.requires_grad and d.chance(0.3):
        d.label("backward twice")
        d.call("a new loss, backward twice with retain_graph", _twice, m, logits, target,
               d.like(loss, mix="ordinary"))


def _saved_set(m, logits, target):
    """[shape, dtype] of every tensor save_for_backward packs (sorted), and the names of the
    node's attributes that hold a tensor (none: a plain ctx attribute escapes the hooks)."""
    packed = []
    with kael.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        loss = m.SoftmaxCrossEntropy.apply(logits, target)
    kept = sorted(k for k, v in vars(loss.grad_fn).items()
                  if isinstance(v, kael.Tensor) or isinstance(v, (tuple, list)) and any(isinstance(t, kael.Tensor) for t in v))
    return [sorted([list(t.shape), t.dtype.name] for t in packed), kept]


def _twice(m, logits, target, g):
    """The logits' gradient of a fresh loss after one backward(g, retain_graph=True), then after a
    second backward(g): the second must add the same gradient again."""
    x = logits.detach().requires_grad_()
    loss = m.SoftmaxCrossEntropy.apply(x, target)
    loss.backward(g, retain_graph=True)
    first = x.grad.clone()
    loss.backward(g)
    return [first, x.grad]


def test_domain_softmax_cross_entropy(m):
    """SoftmaxCrossEntropy(logits, target) on 300 generated cases over the statement's domain"""
    return DOMAIN.run(m, "softmax_cross_entropy", float32=(1e-4, 1e-6), float64=(1e-9, 1e-12))
