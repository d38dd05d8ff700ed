"""``kael.nn.functional``: the stateless forms of layers, activations and losses."""

from __future__ import annotations

from .. import dtype as dt
from ..creation import arange, rand
from ..ops.gather import embedding as _embedding
from ..ops.layer_norm import layer_norm  # noqa: F401  (re-exported)
from ..ops.pad import pad  # noqa: F401  (re-exported)
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
    "dropout", "leaky_relu", "one_hot", "pad", "normalize", "layer_norm", "embedding",
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


def one_hot(tensor, num_classes=-1):
    """int64 rows with a 1 at each class index: shape ``tensor.shape + [num_classes]``
    (``-1``: one more than the largest index)."""
    if tensor.dtype is not dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    if tensor.numel():
        if tensor.min().item() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if tensor.max().item() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == arange(num_classes)).long()


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input / max(norm_p(input, dim), eps)``: unit vectors along ``dim``."""
    return input / input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)


def embedding(input, weight, padding_idx=None):
    """The rows of ``weight`` at the indices ``input``."""
    return _embedding(input, weight, padding_idx)
