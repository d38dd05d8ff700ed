"""Hidden tests of saved_tensor: named regression cases, then seeded generated ones."""

import random
import threading

import kael


def _raised(fn):
    try:
        return ["ok", fn()]
    except RuntimeError as exc:
        return ["raised", str(exc)]


def test_version_after_earlier_changes(m):
    """a tensor already changed twice is saved at version 2; a third change is caught as 2 -> 3"""
    x = kael.zeros(3)
    x.add_(1)
    x.mul_(2)
    s = m.SavedTensor(x)
    before = s.version
    x.add_(1)
    return [before, _raised(lambda: s.unpack().tolist())]


def test_change_through_a_view(m):
    """a write through a view of the saved tensor's memory is caught"""
    x = kael.zeros(4)
    s = m.SavedTensor(x)
    view = x[1:3]
    view.fill_(7.0)
    return _raised(lambda: s.unpack().tolist())


def test_change_through_detach(m):
    """a write through x.detach() is caught (detach shares memory and version)"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    s = m.SavedTensor(x)
    x.detach().mul_(3)
    return _raised(lambda: s.unpack().tolist())


def test_saving_a_view(m):
    """SavedTensor of a view, then a write to the base: caught"""
    base = kael.zeros(2, 3)
    s = m.SavedTensor(base[0])
    base[1, 2] = 4.0
    return _raised(lambda: s.unpack().tolist())


def test_unrelated_change_is_fine(m):
    """changing another tensor, or a clone of the saved one, does not trip the check"""
    x = kael.tensor([1.0, 2.0])
    other = kael.tensor([3.0])
    s = m.SavedTensor(x)
    other.add_(1)
    x.clone().add_(1)
    return _raised(lambda: s.unpack().tolist())


def test_unpack_twice(m):
    """unpack() twice without changes returns the values both times"""
    s = m.SavedTensor(kael.tensor([1.5, -2.5]))
    return [s.unpack().tolist(), s.unpack().tolist(), s.version]


def test_unpacked_shares_memory(m):
    """unpack() shares memory with the saved tensor (no copy)"""
    x = kael.tensor([1.0, 2.0])
    return m.SavedTensor(x).unpack().untyped_storage() is x.untyped_storage()


def test_saved_output_is_detached(m):
    """saving an output with history: the handle has no grad_fn, so no cycle through ctx"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x.exp()
    s = m.SavedTensor(y)
    u = s.unpack()
    return [u.grad_fn is None, u.requires_grad, u.is_leaf, y.grad_fn is not None]


def test_cube_gradients(m):
    """Cube.apply(x): gradients of (y * w).sum() (the reference's run gives the expected ones)"""
    x = kael.tensor([0.5, -1.5, 2.0], dtype=kael.float64, requires_grad=True)
    w = kael.tensor([1.0, 2.0, -1.0], dtype=kael.float64)
    (m.Cube.apply(x) * w).sum().backward()
    return x.grad.tolist()


def test_cube_gradcheck(m):
    """kael.autograd.gradcheck(Cube.apply, (x,))"""
    x = kael.tensor([[0.3, -0.2], [1.1, 0.7]], dtype=kael.float64, requires_grad=True)
    return kael.autograd.gradcheck(m.Cube.apply, (x,))


def test_cube_change_via_view_before_backward(m):
    """Cube.apply(x), a write into x through a view, then backward: raises"""
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = m.Cube.apply(x)
    with kael.no_grad():
        x[1:].mul_(2)
    try:
        y.sum().backward()
    except RuntimeError as exc:
        return ["raised", str(exc), x.grad is None]
    return ["no error", x.grad.tolist()]


def test_cube_reads_saved_tensor_not_current(m):
    """Cube.apply(x) twice on two leaves: each backward uses its own saved input"""
    a = kael.tensor([1.0], requires_grad=True)
    b = kael.tensor([2.0], requires_grad=True)
    ya, yb = m.Cube.apply(a), m.Cube.apply(b)
    (ya + yb).sum().backward()
    return [a.grad.tolist(), b.grad.tolist()]


# -- the version as recorded, no reference cycle, seeded generated cases -----------------------------


def test_version_is_the_one_recorded_at_save(m):
    """s.version after later in-place changes is still the version at save time"""
    x = kael.zeros(2)
    x.add_(1)
    s = m.SavedTensor(x)
    x.mul_(3)
    x.add_(1)
    return [s.version, x._version]


class _ExpSavingOutput(kael.autograd.Function):
    """y = exp(x), saving its own output in a SavedTensor (the test sets ``SAVED`` to yours)."""

    SAVED = None

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.saved_y = _ExpSavingOutput.SAVED(y)
        return y

    @staticmethod
    def backward(ctx, g):
        return g * ctx.saved_y.unpack()


def test_saved_output_leaves_no_reference_cycle(m):
    """a Function saving its own output: with the garbage collector off, dropping the output
    frees its node at once (a SavedTensor holding the tensor with its history would make the
    cycle output -> node -> ctx -> SavedTensor -> output)"""
    import gc
    import weakref

    _ExpSavingOutput.SAVED = m.SavedTensor
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        x = kael.tensor([1.0, 2.0], requires_grad=True)
        y = _ExpSavingOutput.apply(x)
        node = weakref.ref(y.grad_fn)
        y.sum().backward(retain_graph=True)
        grad = x.grad.tolist()
        del y
        freed = node() is None
    finally:
        if was_enabled:
            gc.enable()
    return [freed, grad]


def test_generated_changes(m):
    """30 seeded runs: a tensor (float32/float64, maybe a strided view with an offset) changed in
    place 0-3 times, saved, then changed 0-2 times more (directly or through a view): version,
    and unpack's result or error"""
    rng = random.Random(909)
    out = []
    for _ in range(30):
        dtype = rng.choice([kael.float32, kael.float64])
        base = kael.tensor([round(rng.uniform(-2, 2), 2) for _ in range(7)], dtype=dtype)
        x = base[1::2] if rng.random() < 0.5 else base
        for _ in range(rng.randint(0, 3)):
            x.add_(1)
        s = m.SavedTensor(x)
        for _ in range(rng.randint(0, 2)):
            (base[:2] if rng.random() < 0.5 else x).mul_(2)
        out.append([s.version, _raised(lambda: s.unpack().tolist())])
    return out


# -- a second thread: each SavedTensor keeps its own tensor and version ------------------------------


def _in_another_thread(fn):
    """``fn()`` run whole in a second thread while this one waits (a join, no timeout): its
    value, or the error it raised, as plain data."""
    box = []

    def run():
        box.append(_raised(fn))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return box[0] if box else ["raised", "the thread ended without a result"]


def test_a_second_thread_between_save_and_unpack(m):
    """x saved at version 1; before it is unpacked, a second thread saves its own y, changes y
    twice and unpacks it (an error): x's version and unpack are untouched by y's"""
    x = kael.tensor([1.0, 2.0, 3.0])
    x.add_(1)
    s = m.SavedTensor(x)

    def other():
        y = kael.tensor([5.0, 6.0], dtype=kael.float64)
        t = m.SavedTensor(y)
        y.mul_(2)
        y.mul_(2)
        return [t.version, _raised(lambda: t.unpack().tolist())]

    b = _in_another_thread(other)
    return [s.version, _raised(lambda: s.unpack().tolist()), b]


def test_cube_backward_after_another_threads_cube(m):
    """Cube.apply(x) here; a second thread runs its own Cube on z, changes z and backpropagates
    (the version error); then x's backward still finds x unchanged: 3 x^2"""
    x = kael.tensor([0.5, -1.0], dtype=kael.float64, requires_grad=True)
    y = m.Cube.apply(x)

    def other():
        z = kael.tensor([2.0, 3.0], dtype=kael.float64, requires_grad=True)
        out = m.Cube.apply(z)
        with kael.no_grad():
            z.add_(1)
        out.sum().backward()
        return z.grad.tolist()

    b = _in_another_thread(other)
    y.sum().backward()
    return [b, x.grad.tolist()]


# -- the declared domain (harness/domain.py): programs of saves, writes and unpacks ----------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("saved-tensor")
WRITES = ("add_ on the tensor", "mul_ on a view", "setitem on the base", "write through detach()",
          "out-of-place op (no write)")


def _unpacked(saved, original):
    """What unpack() gave, as a caller sees it: the tensor, whether it shares the saved tensor's
    memory, its version."""
    t = saved.unpack()
    return [t, t.untyped_storage() is original.untyped_storage(), t._version]


def _write(d, base, target, how):
    with kael.no_grad():
        if how == "add_ on the tensor":
            target.add_(1.0)
        elif how == "mul_ on a view":
            (base[..., :1] if base.dim() else base.view(1)).mul_(2.0)
        elif how == "setitem on the base":
            base[...] = 0.5
        elif how == "write through detach()":
            target.detach().sub_(0.25)
        else:
            (target * 2.0).sum()


@DOMAIN.case("programs", cases=220, classes=tuple(f"write {w}" for w in WRITES) + (
    "rank 0", "rank 3", "size 0", "layout transposed", "layout stepped", "dtype float32", "dtype float64",
    "saved a view", "saved after a write", "unpack twice", "two saved tensors", "Cube"))
def programs_case(d, m):
    """A tensor (any shape, layout, dtype), perhaps written first; SavedTensor of it or of a view;
    then writes (in place through the tensor, a view, the base, detach(), or none) between
    version reads and unpacks, repeated; or Cube's forward, a write, its backward."""
    base = d.tensor(d.shape(max_rank=3), d.dtype(), mix="ordinary",
                    layout=d.choice(("contiguous", "transposed", "stepped")), requires_grad=d.chance(0.5))
    if d.chance(0.3):
        d.label("Cube")
        y = d.call("Cube.apply(x)", m.Cube.apply, base)
        if d.chance(0.5):
            d.label(f"write {d.choice(WRITES)}")
            _write(d, base, base, d.labels[-1][len('write '):])
        if isinstance(y, kael.Tensor) and y.requires_grad:
            d.call("backward", y.backward, d.like(y, mix="ordinary"), watch=[base])
        return
    target = base
    if d.chance(0.3) and base.dim() > 0:
        d.label("saved a view")
        target = base[..., :1]
    if d.chance(0.2):
        d.label("saved after a write")
        _write(d, base, target, "add_ on the tensor")
    saved = [d.call("SavedTensor(t)", m.SavedTensor, target)]
    if d.chance(0.3):
        d.label("two saved tensors")
        saved.append(d.call("another SavedTensor(t)", m.SavedTensor, target))
    for _ in range(d.integer(1, 4)):
        s = d.choice(saved)
        if s is None:
            continue
        d.call("version", lambda: s.version)
        d.call("unpack()", _unpacked, s, target)
        if d.chance(0.4):
            d.label("unpack twice")
            d.call("unpack() again", _unpacked, s, target)
        how = d.choice(WRITES)
        d.label(f"write {how}")
        _write(d, base, target, how)


def test_domain_programs(m):
    """220 generated programs of SavedTensor and Cube (saves of tensors and views, writes through
    every path, unpacks repeated): versions, unpacked tensors, the exact error"""
    return DOMAIN.run(m, "programs")
