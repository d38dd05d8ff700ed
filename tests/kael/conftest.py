"""Every kael test starts from the same global state: default dtype float32, grad mode on,
inference mode off. A test that changes them cannot leak into the next one."""

import pytest

import kael
from kael.autograd.grad_mode import state as _grad_state


@pytest.fixture(autouse=True)
def _fresh_kael_state():
    dtype = kael.get_default_dtype()
    enabled, inference = _grad_state.enabled, _grad_state.inference
    kael.set_default_dtype(kael.float32)
    _grad_state.enabled, _grad_state.inference = True, False
    yield
    kael.set_default_dtype(dtype)
    _grad_state.enabled, _grad_state.inference = enabled, inference
