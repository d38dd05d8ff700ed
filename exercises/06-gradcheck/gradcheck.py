"""Check autograd's gradients against finite differences (ADR 0005, rml's GradCheck).

The function may return any shape; it is reduced to L = sum(w * fn(*inputs)) with fixed
pseudo-random weights w, so that every output element counts.
"""

import itertools
import random

import kael


class GradcheckError(RuntimeError):
    """Raised by gradcheck when an analytic gradient disagrees with the numeric one."""


def reduction_weights(n, seed=0):
    """``n`` weights in [-1, 1): ``bits / 2**31 - 1`` for ``bits`` the successive
    ``random.Random(seed).getrandbits(32)`` draws."""
    raise NotImplementedError("implement reduction_weights(n, seed)")


def numeric_gradient(fn, inputs, i, weights, eps=1e-6):
    """dL/d inputs[i] by central differences, as a list of floats in row-major order, where
    L = sum(w * fn(*inputs)) and w is ``weights`` reshaped to the output's shape. Perturb one
    element at a time in place (under ``kael.no_grad()``) and put it back afterwards."""
    raise NotImplementedError("implement numeric_gradient(fn, inputs, i, weights, eps)")


def analytic_gradient(fn, inputs, i, weights):
    """dL/d inputs[i] from autograd (``kael.autograd.grad``), as a list of floats in row-major
    order (zeros when L does not depend on inputs[i]; when L is a constant, with requires_grad
    False, kael.autograd.grad raises: return the zeros without calling it)."""
    raise NotImplementedError("implement analytic_gradient(fn, inputs, i, weights)")


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0):
    """True when every element of every input that requires grad passes
    ``|analytic - numeric| <= atol + rtol * |numeric|``; otherwise raise
    ``GradcheckError(f"Jacobian mismatch for input {i} at element {index}: analytic {a:.6g}, numeric {n:.6g}")``
    for the first failure (inputs in order, elements in row-major order; ``index`` a list)."""
    raise NotImplementedError("implement gradcheck(fn, inputs, eps, atol, rtol, seed)")
