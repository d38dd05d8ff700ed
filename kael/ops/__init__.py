"""Operations, grouped by family; every differentiable one is a ``Function`` with its VJP."""

from ._util import sum_to
from .arithmetic import *  # noqa: F401,F403
from .arithmetic import __all__ as _arithmetic
from .compare import *  # noqa: F401,F403
from .compare import __all__ as _compare
from .indexing import *  # noqa: F401,F403
from .indexing import __all__ as _indexing
from .loss import *  # noqa: F401,F403
from .loss import __all__ as _loss
from .matmul import *  # noqa: F401,F403
from .matmul import __all__ as _matmul
from .reduction import *  # noqa: F401,F403
from .reduction import __all__ as _reduction
from .shape import *  # noqa: F401,F403
from .shape import __all__ as _shape
from .unary import *  # noqa: F401,F403
from .unary import __all__ as _unary

__all__ = ["sum_to", *_arithmetic, *_unary, *_indexing, *_loss, *_matmul, *_reduction, *_shape,
           *_compare]
