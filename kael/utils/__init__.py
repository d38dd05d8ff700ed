"""``kael.utils``: ``checkpoint`` (activation recomputation) and ``data`` (datasets and loaders).

``kael.utils.checkpoint`` is the module (``kael.utils.checkpoint.checkpoint``, as in PyTorch)
and can be called as the function too (``from kael.utils import checkpoint; checkpoint(f, x)``).
"""

from . import checkpoint, data

checkpoint_module = checkpoint

__all__ = ["checkpoint", "checkpoint_module", "data"]
