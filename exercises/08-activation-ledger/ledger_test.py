"""Public tests of ledger: the records of small forward passes."""

import kael
import kael.nn as nn
import kael.nn.functional as F


def test_product(m):
    """ledger(lambda x, w: (x * w).sum(), [x, w]): MulBackward saves both inputs (w first, as PyTorch)"""
    x = kael.ones(2, 3, requires_grad=True)
    w = kael.ones(2, 3, requires_grad=True)
    _, records = m.ledger(lambda a, b: (a * b).sum(), [x, w])
    return records


test_product.expected = [{'shape': [2, 3], 'dtype': 'float32', 'bytes': 24, 'kind': 'input', 'name': '1'}, {'shape': [2, 3], 'dtype': 'float32', 'bytes': 24, 'kind': 'input', 'name': '0'}]


def test_linear_gelu(m):
    """ledger of F.gelu(lin(x)) for nn.Linear(16, 16) and x of shape [8, 16] (the notebook's exercise, smaller)"""
    kael.manual_seed(0)
    lin = nn.Linear(16, 16)
    x = kael.randn(8, 16, requires_grad=True)
    _, records = m.ledger(lambda t: F.gelu(lin(t)), [x], dict(lin.named_parameters()))
    return records


test_linear_gelu.expected = [{'shape': [8, 16], 'dtype': 'float32', 'bytes': 512, 'kind': 'input', 'name': '0'}, {'shape': [16, 16], 'dtype': 'float32', 'bytes': 1024, 'kind': 'parameter', 'name': 'weight'}, {'shape': [8, 16], 'dtype': 'float32', 'bytes': 512, 'kind': 'activation', 'name': None}]


def test_summary(m):
    """summary(records) for the Linear + GELU ledger"""
    kael.manual_seed(0)
    lin = nn.Linear(16, 16)
    x = kael.randn(8, 16, requires_grad=True)
    _, records = m.ledger(lambda t: F.gelu(lin(t)), [x], dict(lin.named_parameters()))
    return m.summary(records)


test_summary.expected = {'input': 512, 'parameter': 1024, 'activation': 512, 'count': 3}


def test_backward_still_works(m):
    """after ledger(...), output.backward() fills x.grad"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    out, _ = m.ledger(lambda t: (t * t).sum(), [x])
    out.backward()
    return x.grad.tolist()


test_backward_still_works.expected = [2.0, 4.0]


def test_a_view_of_an_input_is_that_input(m):
    """ledger(lambda x, w: x @ w.t(), [x, w]): the saved w.t() is a view of input 1 (same storage),
    not an activation"""
    x = kael.ones(2, 3, requires_grad=True)
    w = kael.ones(4, 3, requires_grad=True)
    _, records = m.ledger(lambda a, b: a @ b.t(), [x, w])
    return [[r["kind"], r["name"]] for r in records]


test_a_view_of_an_input_is_that_input.expected = [['input', '0'], ['input', '1']]
