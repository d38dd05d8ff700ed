"""Mutant: reduces the output with a plain sum (all weights 1): a backward that permutes or
swaps output elements goes unnoticed."""

import itertools
import random

import kael


class GradcheckError(RuntimeError):
    """Raised by gradcheck when an analytic gradient disagrees with the numeric one."""


def reduction_weights(n, seed=0):
    rng = random.Random(seed)
    return [rng.getrandbits(32) / 2**31 - 1.0 for _ in range(n)]


def _loss(fn, inputs, weights):
    out = fn(*inputs)
    w = kael.tensor(weights, dtype=out.dtype).reshape(out.shape)
    return (out * w).sum()


def numeric_gradient(fn, inputs, i, weights, eps=1e-6):
    x = inputs[i]
    grads = []
    with kael.no_grad():
        for index in itertools.product(*(range(n) for n in x.shape)):
            original = x[index].item()
            x[index] = original + eps
            plus = _loss(fn, inputs, weights).item()
            x[index] = original - eps
            minus = _loss(fn, inputs, weights).item()
            x[index] = original
            grads.append((plus - minus) / (2 * eps))
    return grads


def analytic_gradient(fn, inputs, i, weights):
    loss = _loss(fn, inputs, weights)
    if not loss.requires_grad:
        return [0.0] * inputs[i].numel()
    (g,) = kael.autograd.grad(loss, [inputs[i]], allow_unused=True)
    if g is None:
        return [0.0] * inputs[i].numel()
    return g.reshape(-1).tolist()


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0):
    with kael.no_grad():
        n = fn(*inputs).numel()
    weights = [1.0] * n
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            continue
        analytic = analytic_gradient(fn, inputs, i, weights)
        numeric = numeric_gradient(fn, inputs, i, weights, eps)
        indices = itertools.product(*(range(s) for s in x.shape))
        for index, a, num in zip(indices, analytic, numeric):
            if not abs(a - num) <= atol + rtol * abs(num):
                raise GradcheckError(
                    f"Jacobian mismatch for input {i} at element {list(index)}: analytic {a:.6g}, numeric {num:.6g}"
                )
    return True
