"""Public tests of saved_tensor."""

import kael


def test_unpack_returns_values(m):
    """SavedTensor(x).unpack().tolist() and .version for a fresh x"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    s = m.SavedTensor(x)
    return [s.unpack().tolist(), s.version]


test_unpack_returns_values.expected = [[1.0, 2.0], 0]


def test_unpack_is_detached(m):
    """SavedTensor(y) for y = x * 2: unpack() has no grad_fn and does not require grad"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    out = m.SavedTensor(x * 2).unpack()
    return [out.grad_fn is None, out.requires_grad]


test_unpack_is_detached.expected = [True, False]


def test_inplace_change_is_caught(m):
    """SavedTensor(x), then x.add_(1) under no_grad, then unpack() raises"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    s = m.SavedTensor(x)
    with kael.no_grad():
        x.add_(1)
    return s.unpack().tolist()


test_inplace_change_is_caught.raises = ['RuntimeError', 'one of the variables needed for gradient computation has been modified by an inplace operation: expected version 0, got 1']


def test_cube_backward(m):
    """Cube.apply(x).sum().backward() for x = [1, 2, -1]: x.grad = 3 x**2"""
    x = kael.tensor([1.0, 2.0, -1.0], requires_grad=True)
    m.Cube.apply(x).sum().backward()
    return x.grad.tolist()


test_cube_backward.expected = [3.0, 12.0, 3.0]


def test_cube_detects_change_before_backward(m):
    """Cube.apply(x), then x[0] = 5 under no_grad, then backward() raises"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = m.Cube.apply(x)
    with kael.no_grad():
        x[0] = 5.0
    y.sum().backward()
    return x.grad.tolist()


test_cube_detects_change_before_backward.raises = ['RuntimeError', 'one of the variables needed for gradient computation has been modified by an inplace operation: expected version 0, got 1']
