"""Public tests of views: each test builds a view with your Function, runs backward and returns
the base's gradient as a list; the expected value is written below."""

import kael


def _grad_through(view_fn, x, weights=None):
    """x.grad after (view_fn(x) * weights).sum().backward(); weights default to 1, 2, 3, ..."""
    x = x.detach().requires_grad_()
    y = view_fn(x)
    if weights is None:
        weights = kael.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    (y * weights).sum().backward()
    return x.grad.tolist()


def test_narrow_columns(m):
    """narrow(x, 1, 1, 2) of a [3, 4] x: the gradient is zero outside the two columns"""
    return _grad_through(lambda x: m.narrow(x, 1, 1, 2), kael.zeros(3, 4))


test_narrow_columns.expected = [[0.0, 1.0, 2.0, 0.0], [0.0, 3.0, 4.0, 0.0], [0.0, 5.0, 6.0, 0.0]]


def test_transpose(m):
    """transpose(x, 0, 1) of a [2, 3] x: the gradient comes back in x's layout"""
    return _grad_through(lambda x: m.transpose(x, 0, 1), kael.zeros(2, 3))


test_transpose.expected = [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]


def test_expand_sums_repeats(m):
    """expand(x, 2, 3, 4) of a [3, 1] x: each element was read 8 times"""
    return _grad_through(lambda x: m.expand(x, 2, 3, 4), kael.zeros(3, 1), kael.ones(2, 3, 4))


test_expand_sums_repeats.expected = [[8.0], [8.0], [8.0]]


def test_strided_positions(m):
    """strided_positions((2, 3), (1, 2), 1): the flat positions a strided view reads"""
    return m.strided_positions((2, 3), (1, 2), 1)


test_strided_positions.expected = [1, 3, 5, 2, 4, 6]


def test_overlapping_windows_add_up(m):
    """as_strided(x, (4, 3), (1, 1)) of x = 6 elements: sliding windows share elements"""
    return _grad_through(lambda x: m.as_strided(x, (4, 3), (1, 1)), kael.zeros(6), kael.ones(4, 3))


test_overlapping_windows_add_up.expected = [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]


def test_inplace_on_a_view_changes_the_base(m):
    """under no_grad, narrow(b, 0, 1, 1).add_(5): b changes and b's version goes up"""
    b = kael.zeros(3, 2)
    with kael.no_grad():
        before = b._version
        m.narrow(b, 0, 1, 1).add_(5.0)
    return [b.tolist(), b._version > before]


test_inplace_on_a_view_changes_the_base.expected = [[[0.0, 0.0], [5.0, 5.0], [0.0, 0.0]], True]


def test_transpose_last_two_of_three_dims(m):
    """transpose(x, -1, 1) of a [2, 3, 4] x: the gradient comes back in x's layout"""
    return _grad_through(lambda x: m.transpose(x, -1, 1), kael.zeros(2, 3, 4))


test_transpose_last_two_of_three_dims.expected = [[[1.0, 4.0, 7.0, 10.0], [2.0, 5.0, 8.0, 11.0], [3.0, 6.0, 9.0, 12.0]], [[13.0, 16.0, 19.0, 22.0], [14.0, 17.0, 20.0, 23.0], [15.0, 18.0, 21.0, 24.0]]]


def test_narrow_negative_dim(m):
    """narrow(x, -2, 1, 1) of a [2, 3, 2] x: dim -2 is dim 1, the middle one"""
    return _grad_through(lambda x: m.narrow(x, -2, 1, 1), kael.zeros(2, 3, 2))


test_narrow_negative_dim.expected = [[[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]], [[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]]


def test_expand_repeats_a_middle_dim(m):
    """expand(x, 2, 3, 4) of a [2, 1, 4] x with weights 1, 2, ..., 24: each x[i, 0, k] gets the sum
    of the three weights that read it"""
    return _grad_through(lambda x: m.expand(x, 2, 3, 4), kael.zeros(2, 1, 4))


test_expand_repeats_a_middle_dim.expected = [[[15.0, 18.0, 21.0, 24.0]], [[51.0, 54.0, 57.0, 60.0]]]
