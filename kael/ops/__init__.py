"""Operations, grouped by family; every differentiable one is a ``Function`` with its VJP."""

from ..tensor import Tensor
from . import _register
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

# issue 23 part B: ops PyTorch code reaches for
from .cumulative import *  # noqa: F401,F403
from .cumulative import __all__ as _cumulative
from .gather import *  # noqa: F401,F403
from .gather import __all__ as _gather
from .layer_norm import *  # noqa: F401,F403
from .layer_norm import __all__ as _layer_norm
from .products import *  # noqa: F401,F403
from .products import __all__ as _products
from .sampling import *  # noqa: F401,F403
from .sampling import __all__ as _sampling
from .sort import *  # noqa: F401,F403
from .sort import __all__ as _sort
from .split import *  # noqa: F401,F403
from .split import __all__ as _split
from .triangular import *  # noqa: F401,F403
from .triangular import __all__ as _triangular

__all__ = ["sum_to", *_arithmetic, *_unary, *_indexing, *_loss, *_matmul, *_reduction, *_shape,
           *_compare, *_cumulative, *_gather, *_layer_norm, *_products, *_sampling, *_sort, *_split, *_triangular]

# the ops that are also Tensor methods, operators or in-place variants (each registered beside its op)
_register.install(Tensor)
