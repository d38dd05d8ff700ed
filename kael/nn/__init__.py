"""``kael.nn``: modules, layers, losses, ``functional`` and ``init``."""

from . import functional, init, utils
from .containers import ModuleDict, ParameterDict, ParameterList
from .layers import *  # noqa: F401,F403
from .layers import __all__ as _layers
from .module import Module, ModuleList, Sequential
from .parameter import Parameter

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Parameter",
    "functional", "init", "utils", *_layers,
]
