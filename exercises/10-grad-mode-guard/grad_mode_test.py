"""Public tests of grad_mode: each test records kael.is_grad_enabled() at a few points and
returns the list; the expected value is written below the test."""

import kael


def test_no_grad_block(m):
    """[mode before, inside with no_grad(), after]"""
    seen = [kael.is_grad_enabled()]
    with m.no_grad():
        seen.append(kael.is_grad_enabled())
    seen.append(kael.is_grad_enabled())
    return seen


test_no_grad_block.expected = [True, False, True]


def test_no_grad_records_no_history(m):
    """(x * 2).requires_grad inside and outside with no_grad()"""
    x = kael.tensor([1.0], requires_grad=True)
    with m.no_grad():
        inside = (x * 2).requires_grad
    return [inside, (x * 2).requires_grad]


test_no_grad_records_no_history.expected = [False, True]


def test_nested_no_grad(m):
    """no_grad() inside no_grad(): the inner exit keeps grad mode off"""
    seen = []
    with m.no_grad():
        with m.no_grad():
            seen.append(kael.is_grad_enabled())
        seen.append(kael.is_grad_enabled())
    seen.append(kael.is_grad_enabled())
    return seen


test_nested_no_grad.expected = [False, False, True]


def test_enable_grad_inside_no_grad(m):
    """enable_grad() inside no_grad(), then back"""
    seen = []
    with m.no_grad():
        with m.enable_grad():
            seen.append(kael.is_grad_enabled())
        seen.append(kael.is_grad_enabled())
    seen.append(kael.is_grad_enabled())
    return seen


test_enable_grad_inside_no_grad.expected = [True, False, True]


def test_exception_restores_mode(m):
    """an exception leaves with no_grad(): it reaches the caller, and grad mode is back on"""
    caught = None
    try:
        with m.no_grad():
            raise ValueError("boom")
    except ValueError as exc:
        caught = str(exc)
    return [caught, kael.is_grad_enabled()]


test_exception_restores_mode.expected = ["boom", True]


def test_decorator(m):
    """@no_grad() on a function: off during each call, on between calls"""
    @m.no_grad()
    def inside():
        return kael.is_grad_enabled()

    return [inside(), kael.is_grad_enabled(), inside(), kael.is_grad_enabled()]


test_decorator.expected = [False, True, False, True]
