"""Public tests of sum_to: each test returns plain data (shapes as lists, values via tolist());
the expected value is written below the test."""

import kael


def test_broadcast_bias(m):
    """broadcast_shape((32, 4), (4,))"""
    return list(m.broadcast_shape((32, 4), (4,)))


test_broadcast_bias.expected = [32, 4]


def test_broadcast_both_stretch(m):
    """broadcast_shape((3, 1), (1, 5))"""
    return list(m.broadcast_shape((3, 1), (1, 5)))


test_broadcast_both_stretch.expected = [3, 5]


def test_broadcast_mismatch_raises(m):
    """broadcast_shape((2, 3), (4,)) raises ValueError"""
    return list(m.broadcast_shape((2, 3), (4,)))


test_broadcast_mismatch_raises.raises = ["ValueError", "shapes [2, 3] and [4] cannot be broadcast"]


def test_sum_to_bias(m):
    """sum_to(g, (3,)) for g = [[1, 2, 3], [4, 5, 6]]: the column sums"""
    g = kael.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    return m.sum_to(g, (3,)).tolist()


test_sum_to_bias.expected = [5.0, 7.0, 9.0]


def test_sum_to_keeps_dim_of_size_one(m):
    """sum_to(g, (2, 1)) for g = [[1, 2, 3], [4, 5, 6]]: the row sums, shape [2, 1]"""
    g = kael.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    return m.sum_to(g, (2, 1)).tolist()


test_sum_to_keeps_dim_of_size_one.expected = [[6.0], [15.0]]


def test_sum_to_scalar(m):
    """sum_to(g, ()) for g = [[1, 2], [3, 4]]: a 0-d tensor holding the total"""
    g = kael.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = m.sum_to(g, ())
    return [list(out.shape), out.tolist()]


test_sum_to_scalar.expected = [[], 10.0]


def test_sum_to_same_shape(m):
    """sum_to(g, (2, 2)) returns the values of g unchanged"""
    g = kael.tensor([[1.0, 2.0], [3.0, 4.0]])
    return m.sum_to(g, (2, 2)).tolist()


test_sum_to_same_shape.expected = [[1.0, 2.0], [3.0, 4.0]]


def test_sum_to_impossible_raises(m):
    """sum_to(kael.ones(2, 3), (4,)) raises RuntimeError"""
    return m.sum_to(kael.ones(2, 3), (4,)).tolist()


test_sum_to_impossible_raises.raises = ["RuntimeError", "sum_to: shape [2, 3] cannot be reduced to [4]"]


def test_sum_to_two_kept_dims(m):
    """sum_to(g, (2, 1, 1)) for g = arange(24) of shape [2, 3, 4]: both size-1 dims are summed, kept"""
    g = kael.arange(24, dtype=kael.float64).reshape(2, 3, 4)
    out = m.sum_to(g, (2, 1, 1))
    return [list(out.shape), out.tolist()]


test_sum_to_two_kept_dims.expected = [[2, 1, 1], [[[66.0]], [[210.0]]]]
