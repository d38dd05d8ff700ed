"""``kael.autograd.graph``: hooks on saved tensors, as in ``torch.autograd.graph``."""

from .node import Node
from .saved import save_on_cpu, saved_tensors_hooks

__all__ = ["saved_tensors_hooks", "save_on_cpu", "Node"]
