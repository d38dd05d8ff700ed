"""Autograd errors that point at the program (issue 12): with ``set_detect_source(True)`` the
version error and the second-backward error name the lines where the tensor was saved, where
it was modified in place and which backward released the graph."""

from __future__ import annotations

import linecache

import pytest

import kael
from kael import autograd

FILENAME = "<learner>"


def run(source: str, detect=True):
    """Run ``source`` as the playground does: a named file whose lines linecache knows."""
    lines = source.splitlines(keepends=True)
    linecache.cache[FILENAME] = (len(source), None, lines, FILENAME)
    previous = autograd.set_detect_source(detect)
    try:
        exec(compile(source, FILENAME, "exec"), {"kael": kael})
    finally:
        autograd.set_detect_source(previous)
        del linecache.cache[FILENAME]


VERSION = """\
x = kael.tensor([1.0, 2.0], requires_grad=True)
w = kael.tensor([3.0, 4.0])
a = x * w
loss = a.sum()
w.add_(1)
loss.backward()
"""


def test_version_error_names_the_saving_and_the_modifying_line():
    with pytest.raises(RuntimeError) as err:
        run(VERSION)
    assert "saved by MulBackward at line 3: a = x * w; modified at line 5: w.add_(1)" in str(err.value)


def test_the_last_in_place_write_is_named_even_through_a_view():
    source = VERSION.replace("w.add_(1)", "v = w[0:1]\nv.mul_(2)")
    with pytest.raises(RuntimeError) as err:
        run(source)
    assert "modified at line 6: v.mul_(2)" in str(err.value)


def test_second_backward_names_the_recording_line_and_the_backward_that_released_it():
    source = """\
x = kael.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
y.backward()
"""
    with pytest.raises(RuntimeError) as err:
        run(source)
    message = str(err.value)
    assert "Trying to backward through the graph a second time" in message
    assert "of SumBackward" in message
    assert "(recorded at line 2: y = (x * x).sum(); released by the backward at line 3: y.backward())" in message


def test_without_the_flag_the_messages_name_only_the_node():
    with pytest.raises(RuntimeError) as err:
        run(VERSION, detect=False)
    message = str(err.value)
    assert message.endswith("(saved by MulBackward)") and "line" not in message
    assert not autograd.is_detect_source_enabled()


def test_context_manager_restores_the_flag():
    with autograd.detect_source():
        assert autograd.is_detect_source_enabled()
    assert not autograd.is_detect_source_enabled()
