"""Count what a forward pass saves for backward: which tensors, how many bytes, and which of
them are the extra activations (not inputs, not parameters)."""

import kael


def ledger(fn, inputs, params=None):
    """Run ``fn(*inputs)`` under ``kael.autograd.graph.saved_tensors_hooks`` and return
    ``(output, records)``: one record per saved tensor, in the order they were saved,

        {"shape": [8, 16], "dtype": "float32", "bytes": 512, "kind": "input", "name": "0"}

    ``kind`` is ``"input"`` when the tensor shares memory (storage) with ``inputs[k]``
    (``name`` is ``str(k)``), ``"parameter"`` when it shares memory with a value of the dict
    ``params`` (``name`` is its key), else ``"activation"`` (``name`` is ``None``). Inputs are
    looked up before parameters; when several inputs (or parameters) share the memory, the first
    index (or key) names it. Backward through ``output`` must still work afterwards. If ``fn``
    raises, the exception goes out of ``ledger`` and the hooks are removed all the same."""
    raise NotImplementedError("implement ledger(fn, inputs, params): pack hook that records, unpack that returns")


def summary(records):
    """Bytes per kind and the number of records:
    ``{"input": n, "parameter": n, "activation": n, "count": n}``."""
    raise NotImplementedError("implement summary(records)")
