"""Parameter initializers. Each fills a tensor in place under ``no_grad`` from kael's seeded
generator and returns it."""

from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..creation import rand, randn

__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "xavier_uniform_",
    "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
]


def calculate_gain(nonlinearity, param=None):
    gains = {"linear": 1.0, "identity": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 0.75}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity not in gains:
        raise ValueError(f"unsupported nonlinearity {nonlinearity!r}")
    return gains[nonlinearity]


def _fans(t):
    if t.ndim < 2:
        raise ValueError("fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in t.shape[2:]:
        receptive *= s
    return t.shape[1] * receptive, t.shape[0] * receptive


def uniform_(t, a=0.0, b=1.0, generator=None):
    with no_grad():
        return t.copy_(rand(t.shape, dtype=t.dtype, generator=generator) * (b - a) + a)


def normal_(t, mean=0.0, std=1.0, generator=None):
    with no_grad():
        return t.copy_(randn(t.shape, dtype=t.dtype, generator=generator) * std + mean)


def constant_(t, value):
    with no_grad():
        return t.fill_(value)


def zeros_(t):
    return constant_(t, 0.0)


def ones_(t):
    return constant_(t, 1.0)


def _no_op_when_empty(init):
    """PyTorch: initializing a zero-element tensor is a no-op (its fans may be 0)."""

    def wrapper(t, *args, **kwargs):
        return t if t.numel() == 0 else init(t, *args, **kwargs)

    wrapper.__name__, wrapper.__doc__ = init.__name__, init.__doc__
    return wrapper


@_no_op_when_empty
def xavier_uniform_(t, gain=1.0, generator=None):
    fan_in, fan_out = _fans(t)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(t, -bound, bound, generator)


@_no_op_when_empty
def xavier_normal_(t, gain=1.0, generator=None):
    fan_in, fan_out = _fans(t)
    return normal_(t, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


@_no_op_when_empty
def kaiming_uniform_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    fan = _fans(t)[0 if mode == "fan_in" else 1]
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(t, -bound, bound, generator)


@_no_op_when_empty
def kaiming_normal_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    fan = _fans(t)[0 if mode == "fan_in" else 1]
    return normal_(t, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)
