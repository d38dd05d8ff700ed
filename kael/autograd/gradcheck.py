"""Numerical gradient checking (ADR 0005, rml's GradCheck).

The function may return any shape: it is reduced to ``L = sum(w * f(inputs))`` with fixed
pseudo-random weights ``w`` in [-1, 1), so every output element counts. The weights come from
``random.Random(seed)``'s raw 32-bit draws (``w = bits / 2**31 - 1``), the same everywhere.
The analytic gradient of ``L`` comes from one backward; the numeric one from central
differences ``(L(x + eps e_i) - L(x - eps e_i)) / 2 eps``. An element passes when
``|analytic - numeric| <= atol + rtol * |numeric|``; the first failure names the input and the
element.
"""

from __future__ import annotations

import itertools
import random
import warnings

from .. import autograd
from ..creation import tensor
from ..tensor import B, Tensor
from .grad_mode import no_grad

__all__ = ["gradcheck", "GradcheckError", "reduction_weights"]


class GradcheckError(RuntimeError):
    pass


def reduction_weights(n: int, seed: int) -> list:
    """``n`` weights in [-1, 1) from the documented generator."""
    rng = random.Random(seed)
    return [rng.getrandbits(32) / 2**31 - 1.0 for _ in range(n)]


def _outputs(result):
    return result if isinstance(result, (tuple, list)) else (result,)


def _weighted_sum(outputs, weights):
    total = None
    for out, w in zip(outputs, weights):
        if not isinstance(out, Tensor) or not out.dtype.is_floating_point:
            continue
        term = (out * w).sum()
        total = term if total is None else total + term
    return total


def _poke(x, index, value):
    """Write one element of ``x`` without bumping its version counter: gradcheck must leave its
    inputs as it found them, so a graph that saved ``x`` can still run backward."""
    B.setitem(x._data, index, B.full((), value, x.dtype))


def _weights(outputs, seed):
    """One weight tensor per floating-point output (output ``k`` draws from ``seed + k``)."""
    weights = []
    for k, out in enumerate(outputs):
        if isinstance(out, Tensor) and out.dtype.is_floating_point:
            w = reduction_weights(out.numel(), seed + k)
            weights.append(tensor(w, dtype=out.dtype).reshape(out.shape))
        else:
            weights.append(None)
    return weights


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, seed=0):
    """Compare autograd's gradients of ``fn(*inputs)`` with central differences.

    Returns True when every element of every input that requires grad passes; otherwise raises
    ``GradcheckError`` naming the input and element (or returns False with
    ``raise_exception=False``).
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in diff:
        if inputs[i].dtype.name != "float64":
            warnings.warn(
                f"input {i} of gradcheck is {inputs[i].dtype.name}, not float64: finite differences "
                "in single precision are unreliable",
                stacklevel=2,
            )

    outputs = _outputs(fn(*inputs))
    weights = _weights(outputs, seed)
    loss = _weighted_sum(outputs, weights)
    if loss is None or not loss.requires_grad:
        analytic = [None] * len(diff)
    else:
        analytic = autograd.grad(loss, [inputs[i] for i in diff], allow_unused=True)

    def evaluate():
        value = _weighted_sum(_outputs(fn(*inputs)), weights)
        return 0.0 if value is None else value.item()

    with no_grad():
        for slot, i in enumerate(diff):
            x = inputs[i]
            a = analytic[slot]
            a_values = a.detach().reshape(-1).tolist() if a is not None else [0.0] * x.numel()
            for flat, index in enumerate(itertools.product(*(range(s) for s in x.shape))):
                original = x[index].item()
                _poke(x, index, original + eps)
                plus = evaluate()
                _poke(x, index, original - eps)
                minus = evaluate()
                _poke(x, index, original)
                numeric = (plus - minus) / (2 * eps)
                analytic_value = a_values[flat]
                if not abs(analytic_value - numeric) <= atol + rtol * abs(numeric):
                    message = (
                        f"Jacobian mismatch for input {i} at element {list(index)}: analytic "
                        f"{analytic_value:.8g}, numeric {numeric:.8g} (|difference| "
                        f"{abs(analytic_value - numeric):.3g} > atol + rtol * |numeric| = "
                        f"{atol + rtol * abs(numeric):.3g})"
                    )
                    if raise_exception:
                        raise GradcheckError(message)
                    return False
    return True
