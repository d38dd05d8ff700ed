"""Public tests of gather: each test selects with repeated indices, runs backward and returns
the gradient of the source as a list; the expected value is written below."""

import kael


def test_scatter_add_rows(m):
    """scatter_add_rows(3, [0, 0, 2], rows [1, 1], [2, 2], [3, 3]): row 0 gets 1 + 2"""
    return m.scatter_add_rows(3, kael.tensor([0, 0, 2]), kael.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])).tolist()


test_scatter_add_rows.expected = [[3.0, 3.0], [0.0, 0.0], [3.0, 3.0]]


def test_repeated_rows(m):
    """index_select(x, 0, [0, 0, 1]) of a [3, 2] x, then .sum().backward(): row 0 counts twice"""
    x = kael.zeros(3, 2, requires_grad=True)
    m.index_select(x, 0, kael.tensor([0, 0, 1])).sum().backward()
    return x.grad.tolist()


test_repeated_rows.expected = [[2.0, 2.0], [1.0, 1.0], [0.0, 0.0]]


def test_x_times_itself_by_index(m):
    """(take(x, [1, 1, 1]) * [1, 2, 3]).sum(): x[1] gets 1 + 2 + 3"""
    x = kael.tensor([5.0, 7.0], requires_grad=True)
    (m.take(x, kael.tensor([1, 1, 1])) * kael.tensor([1.0, 2.0, 3.0])).sum().backward()
    return x.grad.tolist()


test_x_times_itself_by_index.expected = [0.0, 6.0]


def test_select_columns(m):
    """index_select(x, 1, [2, 0, 2]) of a [2, 3] x with weights 1..6"""
    x = kael.zeros(2, 3, requires_grad=True)
    y = m.index_select(x, 1, kael.tensor([2, 0, 2]))
    (y * kael.arange(1.0, 7.0).reshape(2, 3)).sum().backward()
    return [y.tolist(), x.grad.tolist()]


test_select_columns.expected = [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[2.0, 0.0, 4.0], [5.0, 0.0, 10.0]]]


def test_negative_positions(m):
    """take(x, [[-1, 0], [-1, -1]]) of a [2, 2] x: position -1 is the last one"""
    x = kael.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = m.take(x, kael.tensor([[-1, 0], [-1, -1]]))
    y.sum().backward()
    return [y.tolist(), x.grad.tolist()]


test_negative_positions.expected = [[[4.0, 1.0], [4.0, 4.0]], [[1.0, 0.0], [0.0, 3.0]]]


def test_select_along_a_negative_dim(m):
    """index_select(x, -2, [1, 1, -1]) of a [2, 3, 2] x with weights 1..12: dim -2 is the middle
    one, index -1 is its last slice, and slice 1 is read twice"""
    x = kael.zeros(2, 3, 2, requires_grad=True)
    y = m.index_select(x, -2, kael.tensor([1, 1, -1]))
    (y * kael.arange(1.0, 13.0).reshape(2, 3, 2)).sum().backward()
    return [list(y.shape), x.grad.tolist()]


test_select_along_a_negative_dim.expected = [[2, 3, 2], [[[0.0, 0.0], [4.0, 6.0], [5.0, 6.0]], [[0.0, 0.0], [16.0, 18.0], [11.0, 12.0]]]]
