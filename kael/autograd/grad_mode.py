"""Thread-local grad mode and inference mode, and the guards that set them.

Each guard saves the previous value when it is entered and restores it when it exits, also when
an exception passes through, so guards nest (ADR 0005: GradMode.ExceptionRestoresState). Every
guard also works as a decorator.
"""

from __future__ import annotations

import functools
import threading

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
]


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False


state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _Guard:
    """Sets grad mode (and optionally inference mode) for a ``with`` block or a function."""

    __slots__ = ("_enabled", "_inference", "_saved")

    def __init__(self, enabled: bool, inference: bool | None = None):
        self._enabled = enabled
        self._inference = inference
        self._saved: list = []

    def __enter__(self):
        self._saved.append((state.enabled, state.inference))
        state.enabled = self._enabled
        if self._inference is not None:
            state.inference = self._inference
        return self

    def __exit__(self, *exc):
        state.enabled, state.inference = self._saved.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)

        return wrapper

    def _args(self):
        return (self._enabled, self._inference)


class no_grad(_Guard):
    """Record no history inside the block: results have no grad_fn."""

    __slots__ = ()

    def __init__(self):
        super().__init__(False)

    def _args(self):
        return ()


class enable_grad(_Guard):
    """Turn recording back on inside a ``no_grad`` block."""

    __slots__ = ()

    def __init__(self):
        super().__init__(True)

    def _args(self):
        return ()


class set_grad_enabled(_Guard):
    """``set_grad_enabled(False)`` as a guard; called bare it also sets the mode right away."""

    __slots__ = ()

    def __init__(self, mode: bool):
        super().__init__(bool(mode))
        # PyTorch semantics: the call itself switches the mode; __enter__ then records the
        # value that was in force before the call so that __exit__ restores it.
        self._saved.append((state.enabled, state.inference))
        state.enabled = bool(mode)

    def __enter__(self):
        # The call already switched the mode; keep the pre-call state saved by __init__.
        return self

    def __call__(self, fn):
        # Used as a decorator: undo the switch made by the call itself.
        state.enabled, state.inference = self._saved.pop()
        return super().__call__(fn)

    def _args(self):
        return (self._enabled,)


class inference_mode(_Guard):
    """No history and no version counters: tensors made inside are inference tensors."""

    __slots__ = ()

    def __init__(self, mode: bool = True):
        super().__init__(False, bool(mode))

    def __enter__(self):
        self._saved.append((state.enabled, state.inference))
        if self._inference:
            state.enabled = False
        state.inference = self._inference
        return self

    def _args(self):
        return (bool(self._inference),)
