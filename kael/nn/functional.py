"""``kael.nn.functional``: the stateless forms of layers, activations and losses."""

from __future__ import annotations

from ..creation import rand
from ..ops import (  # noqa: F401  (re-exported)
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    gelu,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    relu,
    sigmoid,
    silu,
    softmax,
    tanh,
)

__all__ = [
    "relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "linear", "mse_loss",
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "dropout", "leaky_relu",
]


def leaky_relu(x, negative_slope=0.01):
    from ..ops import where

    return where(x > 0, x, x * negative_slope)


def dropout(x, p=0.5, training=True):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    keep = (rand(x.shape) >= p).to(x.dtype)
    return x * keep / (1.0 - p)
