"""Hidden tests of saved_tensor."""

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


def test_cube_gradients_match_kael(m):
    """Cube.apply(x) vs x ** 3: gradients of (y * w).sum()"""
    out = []
    for fn in (m.Cube.apply, lambda t: t ** 3):
        x = kael.tensor([0.5, -1.5, 2.0], dtype=kael.float64, requires_grad=True)
        w = kael.tensor([1.0, 2.0, -1.0], dtype=kael.float64)
        (fn(x) * w).sum().backward()
        out.append(x.grad.tolist())
    return out


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
