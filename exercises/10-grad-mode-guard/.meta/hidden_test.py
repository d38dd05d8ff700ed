"""Hidden tests of grad_mode."""

import threading

import kael
from kael.autograd import grad_mode as kael_grad_mode


def _reset():
    kael.set_grad_enabled(True)


def test_guard_class_both_modes(m):
    """GradModeGuard(False) and GradModeGuard(True) used directly"""
    seen = []
    with m.GradModeGuard(False):
        seen.append(kael.is_grad_enabled())
        with m.GradModeGuard(True):
            seen.append(kael.is_grad_enabled())
        seen.append(kael.is_grad_enabled())
    seen.append(kael.is_grad_enabled())
    return seen


def test_same_guard_reentered(m):
    """the same guard object entered again while active: each exit restores its own entry's mode"""
    _reset()
    g = m.no_grad()
    seen = []
    with g:
        with m.enable_grad():
            with g:
                seen.append(kael.is_grad_enabled())
            seen.append(kael.is_grad_enabled())
        with g:
            seen.append(kael.is_grad_enabled())
        seen.append(kael.is_grad_enabled())
    seen.append(kael.is_grad_enabled())
    return seen


def test_exception_in_nested_blocks(m):
    """an exception raised two guards deep restores each level on the way out"""
    _reset()
    seen = []
    try:
        with m.no_grad():
            try:
                with m.enable_grad():
                    raise KeyError("inner")
            except KeyError:
                seen.append(kael.is_grad_enabled())
            raise RuntimeError("outer")
    except RuntimeError as exc:
        seen.append(str(exc))
    seen.append(kael.is_grad_enabled())
    return seen


def test_exception_propagates_from_block(m):
    """with no_grad(): 1 / 0 raises ZeroDivisionError out of the block"""
    _reset()
    with m.no_grad():
        1 / 0


def test_decorator_exception_restores(m):
    """a decorated function that raises: the exception reaches the caller, the mode is restored"""
    _reset()

    @m.no_grad()
    def fails():
        raise ValueError("inside")

    try:
        fails()
    except ValueError as exc:
        return [str(exc), kael.is_grad_enabled()]
    return ["no exception", kael.is_grad_enabled()]


def test_decorator_keeps_name_and_result(m):
    """@no_grad() keeps the function's result, arguments and __name__"""
    _reset()

    @m.no_grad()
    def scale(x, factor=2.0):
        """doubles"""
        return (x * factor).requires_grad, (x * factor).tolist()

    x = kael.tensor([1.0, 2.0], requires_grad=True)
    flag, values = scale(x, factor=3.0)
    return [flag, values, scale.__name__, kael.is_grad_enabled()]


def test_decorator_switches_per_call(m):
    """decorating does not switch the mode; each call does"""
    _reset()
    before = kael.is_grad_enabled()

    @m.enable_grad()
    def probe():
        return kael.is_grad_enabled()

    after_decorating = kael.is_grad_enabled()
    with m.no_grad():
        inside = probe()
        after_call = kael.is_grad_enabled()
    return [before, after_decorating, inside, after_call, kael.is_grad_enabled()]


def test_decorator_recursion(m):
    """a decorated recursive function: the mode is restored at every level"""
    _reset()
    seen = []

    @m.no_grad()
    def countdown(n):
        seen.append(kael.is_grad_enabled())
        if n:
            countdown(n - 1)
        seen.append(kael.is_grad_enabled())

    countdown(2)
    return [seen, kael.is_grad_enabled()]


def test_starts_from_off(m):
    """guards entered while grad mode is off restore off"""
    kael.set_grad_enabled(False)
    try:
        seen = []
        with m.enable_grad():
            seen.append(kael.is_grad_enabled())
        seen.append(kael.is_grad_enabled())
        with m.no_grad():
            seen.append(kael.is_grad_enabled())
        seen.append(kael.is_grad_enabled())
        return seen
    finally:
        _reset()


def test_training_step_under_guard(m):
    """an SGD-style update of a leaf inside no_grad(): allowed in-place, no history"""
    _reset()
    w = kael.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with m.no_grad():
        w -= 0.1 * w.grad
    return [w.tolist(), w.grad_fn is None, w.requires_grad]


def test_other_thread_unaffected(m):
    """grad mode is per thread: a guard in another thread does not switch this one"""
    _reset()
    seen = []
    inside = threading.Event()
    release = threading.Event()

    def worker():
        with m.no_grad():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    seen.append(kael.is_grad_enabled())
    release.set()
    t.join(5)
    seen.append(kael.is_grad_enabled())
    return seen


def test_guard_is_your_own(m):
    """no_grad() and enable_grad() return your GradModeGuard, not kael's guards"""
    guards = [m.no_grad(), m.enable_grad()]
    return [isinstance(g, m.GradModeGuard) and not isinstance(g, kael_grad_mode._Guard) for g in guards]
