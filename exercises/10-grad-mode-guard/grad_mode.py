"""Guards that switch kael's grad mode for a block or a function, and put it back.

Read the mode with ``kael.is_grad_enabled()``; switch it with ``kael.set_grad_enabled(mode)``
called as a plain function (do not use kael's own ``no_grad``/``enable_grad`` here).
"""

import kael


class GradModeGuard:
    """``with GradModeGuard(False): ...`` runs the block with grad mode ``False``, then restores
    the mode that was in force when the block was entered, also when an exception leaves the
    block (the exception goes on). Guards nest, the same guard object can be entered again while
    it is active, and ``@GradModeGuard(False)`` on a function runs each call under the guard."""

    def __init__(self, mode):
        raise NotImplementedError("implement __init__: remember the mode to switch to")

    def __enter__(self):
        raise NotImplementedError("implement __enter__: save the current mode, switch to self's mode")

    def __exit__(self, exc_type, exc, tb):
        raise NotImplementedError("implement __exit__: restore the saved mode; let exceptions through")

    def __call__(self, fn):
        raise NotImplementedError("implement __call__(fn): return a wrapper that runs fn under the guard")


def no_grad():
    """A guard that turns grad mode off."""
    raise NotImplementedError("implement no_grad(): return GradModeGuard(False)")


def enable_grad():
    """A guard that turns grad mode on (inside a no_grad block, for example)."""
    raise NotImplementedError("implement enable_grad(): return GradModeGuard(True)")
