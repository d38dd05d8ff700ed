"""``kael.nn``: modules, layers, losses, ``functional`` and ``init``."""

from . import functional, init
from .layers import *  # noqa: F401,F403
from .layers import __all__ as _layers
from .module import Module, ModuleList, Sequential
from .parameter import Parameter

__all__ = ["Module", "Sequential", "ModuleList", "Parameter", "functional", "init", *_layers]
