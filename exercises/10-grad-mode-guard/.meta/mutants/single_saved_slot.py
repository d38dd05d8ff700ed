"""Mutant: keeps the saved mode in one attribute, so entering the same guard object again while
it is active overwrites what the outer entry saved."""

import functools

import kael


class GradModeGuard:
    def __init__(self, mode):
        self.mode = bool(mode)
        self._saved = None

    def __enter__(self):
        self._saved = kael.is_grad_enabled()
        kael.set_grad_enabled(self.mode)
        return self

    def __exit__(self, exc_type, exc, tb):
        kael.set_grad_enabled(self._saved)
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
