"""Mutant: the decorator switches the mode once, when the function is decorated, instead of
around each call."""

import functools

import kael


class GradModeGuard:
    def __init__(self, mode):
        self.mode = bool(mode)
        self._saved = []  # a stack: the same guard may be entered again while active

    def __enter__(self):
        self._saved.append(kael.is_grad_enabled())
        kael.set_grad_enabled(self.mode)
        return self

    def __exit__(self, exc_type, exc, tb):
        kael.set_grad_enabled(self._saved.pop())
        return False

    def __call__(self, fn):
        with self:
            return fn


def no_grad():
    return GradModeGuard(False)


def enable_grad():
    return GradModeGuard(True)
