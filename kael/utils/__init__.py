"""``kael.utils``: ``checkpoint`` (activation recomputation)."""

from . import checkpoint as checkpoint_module
from .checkpoint import checkpoint

__all__ = ["checkpoint", "checkpoint_module"]
