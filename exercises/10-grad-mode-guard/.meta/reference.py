"""Guards that switch kael's grad mode for a block or a function (reference solution)."""

import functools
import threading

import kael


class GradModeGuard:
    def __init__(self, mode):
        self.mode = bool(mode)
        self._local = threading.local()  # saved modes per thread: one guard may run in several

    @property
    def _saved(self):
        """This thread's stack of saved modes (the same guard may be entered again while active)."""
        if not hasattr(self._local, "stack"):
            self._local.stack = []
        return self._local.stack

    def __enter__(self):
        self._saved.append(kael.is_grad_enabled())
        kael.set_grad_enabled(self.mode)
        return self

    def __exit__(self, exc_type, exc, tb):
        kael.set_grad_enabled(self._saved.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


def no_grad():
    return GradModeGuard(False)


def enable_grad():
    return GradModeGuard(True)
