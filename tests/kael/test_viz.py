"""kael.viz (issue 4): the backward graph and the engine's trace as JSON-able data, text and DOT.

The data is the contract with the web front end (kael/viz/SCHEMA.md), so the schema tests pin
every key. Everything runs on both backends and inside Pyodide (standard library only).
"""

import json
import math
import pathlib
import re
import sys

import pytest

import kael
import kael.viz as viz
from kael.autograd import engine

# -- helpers ---------------------------------------------------------------------------------


def diamond():
    """ADR 0005's worked example: x = leaf([1, 2]) (float64), a = x * 2, b = x * 3."""
    x = kael.tensor([1.0, 2.0], dtype=kael.float64, requires_grad=True)
    a = x * 2
    b = x * 3
    loss = (a + b).sum()
    return x, a, b, loss


def strict_json(data):
    """Round-trips through strict JSON unchanged: only dicts, lists, str, numbers, bools, None."""
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    return text


def by_id(items):
    return {item["id"]: item for item in items}


def events(tr, kind):
    return [e for e in tr.steps if e["kind"] == kind]


GRAPH_KEYS = {"version", "kind", "roots", "nodes", "edges", "tensors", "modules", "totals"}
NODE_KEYS = {
    "id", "kind", "name", "label", "doc", "output", "recorded", "tensor", "inputs", "saved", "released", "hooks",
    "module",
}
INPUT_KEYS = {"input_nr", "shape", "dtype", "node", "edge"}
SAVED_KEYS = {
    "name", "shape", "dtype", "bytes", "version", "current_version", "stale", "stale_message", "tensor",
    "value",
}
MODULE_KEYS = {"id", "parent", "name", "path", "type", "extra", "label"}
MEMORY_KEYS = {"version", "kind", "label", "events", "totals"}
MEMORY_EVENT_KEYS = {
    "kind", "id", "bytes", "held_bytes", "held_tensors", "storage", "node", "name", "shape", "dtype",
    "phase",
}
MEMORY_TOTALS_KEYS = {
    "forward_tensors", "forward_bytes", "peak_bytes", "held_bytes", "held_tensors", "events",
    "dropped_events",
}
HOOK_KEYS = {"pre", "post", "tensor", "retains_grad"}
EDGE_KEYS = {"id", "from", "to", "input_nr", "shape", "dtype"}
TENSOR_KEYS = {
    "id", "role", "name", "shape", "dtype", "requires_grad", "is_leaf", "retains_grad", "node",
    "version", "value", "grad",
}
DATA_KEYS = {"shape", "dtype", "numel", "values", "truncated"}
TOTALS_KEYS = {
    "nodes", "function_nodes", "accumulate_nodes", "edges", "null_inputs", "tensors",
    "saved_tensors", "saved_bytes",
}
TRACE_KEYS = {"version", "kind", "passes", "steps", "error"}
PASS_KEYS = {"index", "graph", "completed", "error", "grads"}
OUTPUT_KEYS = {"shape", "dtype"}
START_KEYS = {"kind", "pass", "seeds", "counts", "ready"}
STEP_KEYS = {
    "kind", "pass", "step", "node", "grad", "reason", "hooks", "captured", "accumulated", "sends",
    "ready", "released", "released_saved",
}
SEND_KEYS = {"input_nr", "to", "grad", "added", "buffer", "count_before", "count_after", "ready"}
ERROR_EVENT_KEYS = {"kind", "pass", "step", "node", "grad", "type", "message", "source"}
ERROR_KEYS = {"type", "message", "node"}


def check_data(data):
    assert set(data) == DATA_KEYS
    assert data["numel"] == math.prod(data["shape"])
    if not data["truncated"]:
        assert len(data["values"]) == data["numel"]


def check_graph(g):
    assert set(g) == GRAPH_KEYS
    assert g["version"] == viz.SCHEMA_VERSION == 1 and g["kind"] == "graph"
    ids = {n["id"] for n in g["nodes"]}
    tensor_ids = {t["id"] for t in g["tensors"]}
    for node in g["nodes"]:
        assert set(node) == NODE_KEYS
        assert node["kind"] in ("function", "accumulate")
        assert set(node["hooks"]) == HOOK_KEYS
        assert node["tensor"] is None or node["tensor"] in tensor_ids
        for nr, inp in enumerate(node["inputs"]):
            assert set(inp) == INPUT_KEYS and inp["input_nr"] == nr
            assert (inp["node"] is None) == (inp["edge"] is None)
            assert inp["node"] is None or inp["node"] in ids
        for s in node["saved"]:
            assert set(s) == SAVED_KEYS
            assert s["stale"] == (s["version"] != s["current_version"])
            assert (s["stale_message"] is not None) == s["stale"]
            if s["value"] is not None:
                check_data(s["value"])
        assert node["module"] is None or node["module"] in {m["id"] for m in g["modules"]}
        assert node["output"] is None or set(node["output"]) == OUTPUT_KEYS
    for m in g["modules"]:
        assert set(m) == MODULE_KEYS
    for edge in g["edges"]:
        assert set(edge) == EDGE_KEYS and edge["from"] in ids and edge["to"] in ids
    for t in g["tensors"]:
        assert set(t) == TENSOR_KEYS and t["role"] in ("root", "leaf", "intermediate", "constant")
        check_data(t["value"])
        if t["grad"] is not None:
            check_data(t["grad"])
    assert set(g["totals"]) == TOTALS_KEYS
    assert g["totals"]["nodes"] == len(g["nodes"]) and g["totals"]["edges"] == len(g["edges"])
    strict_json(g)


def check_trace(d):
    assert set(d) == TRACE_KEYS and d["version"] == 1 and d["kind"] == "trace"
    for p in d["passes"]:
        assert set(p) == PASS_KEYS
        check_graph(p["graph"])
        assert p["grads"] is None or set(p["grads"]) == {t["id"] for t in p["graph"]["tensors"]}
    for e in d["steps"]:
        keys = {"start": START_KEYS, "step": STEP_KEYS, "skip": STEP_KEYS, "error": ERROR_EVENT_KEYS}
        assert set(e) == keys[e["kind"]]
        ids = {n["id"] for n in d["passes"][e["pass"]]["graph"]["nodes"]}
        if e["kind"] == "start":
            assert set(e["counts"]) == ids
            for s in e["seeds"]:
                check_data(s["grad"])
        elif e["kind"] != "error":
            assert e["node"] in ids and set(e["ready"]) <= ids
            for send in e["sends"]:
                assert set(send) == SEND_KEYS and send["to"] in ids
                assert send["count_after"] == send["count_before"] - 1
    if d["error"] is not None:
        assert set(d["error"]) == ERROR_KEYS
    strict_json(d)


# -- graph -----------------------------------------------------------------------------------


def test_graph_schema_every_field_present_and_json_serializable():
    x, a, b, loss = diamond()
    g = viz.graph(loss, params=dict(x=x, a=a, b=b))
    check_graph(g)
    assert g["totals"] == {
        "nodes": 5, "function_nodes": 4, "accumulate_nodes": 1, "edges": 5, "null_inputs": 2,
        "tensors": 4, "saved_tensors": 2, "saved_bytes": 16,
    }


def test_schema_md_documents_every_key():
    text = (pathlib.Path(viz.__file__).parent / "SCHEMA.md").read_text(encoding="utf-8")
    keys = (GRAPH_KEYS | NODE_KEYS | INPUT_KEYS | SAVED_KEYS | HOOK_KEYS | EDGE_KEYS | TENSOR_KEYS
            | DATA_KEYS | TOTALS_KEYS | TRACE_KEYS | PASS_KEYS | START_KEYS | STEP_KEYS | SEND_KEYS
            | ERROR_EVENT_KEYS | ERROR_KEYS | MODULE_KEYS | MEMORY_KEYS | MEMORY_EVENT_KEYS
            | MEMORY_TOTALS_KEYS)
    missing = sorted(k for k in keys if f"`{k}`" not in text)
    assert missing == []


def test_graph_ids_follow_the_breadth_first_walk_and_edges_name_input_numbers():
    x, a, b, loss = diamond()
    g = viz.graph(loss, params=dict(x=x, a=a, b=b))
    assert [(n["id"], n["label"]) for n in g["nodes"]] == [
        ("n0", "SumBackward"), ("n1", "AddBackward"), ("n2", "MulBackward(a)"),
        ("n3", "MulBackward(b)"), ("n4", "AccumulateGrad"),
    ]
    assert [(e["id"], e["from"], e["to"], e["input_nr"]) for e in g["edges"]] == [
        ("e0", "n0", "n1", 0), ("e1", "n1", "n2", 0), ("e2", "n1", "n3", 1),
        ("e3", "n2", "n4", 0), ("e4", "n3", "n4", 0),
    ]
    assert g["roots"] == ["n0"]
    assert [n["kind"] for n in g["nodes"]] == ["function"] * 4 + ["accumulate"]
    assert g["nodes"][2]["doc"] == "y = a * b;  da = g * b;  db = g * a"
    # The ids do not depend on params.
    plain = viz.graph(loss)
    assert [n["id"] for n in plain["nodes"]] == [n["id"] for n in g["nodes"]]
    assert [n["label"] for n in plain["nodes"]][2:4] == ["MulBackward #1", "MulBackward #2"]


def test_graph_constant_is_a_null_edge_with_its_shape_and_dtype():
    x, a, b, loss = diamond()
    mul_a = by_id(viz.graph(loss)["nodes"])["n2"]
    assert mul_a["inputs"] == [
        {"input_nr": 0, "shape": [2], "dtype": "float64", "node": "n4", "edge": "e3"},
        {"input_nr": 1, "shape": [], "dtype": "float64", "node": None, "edge": None},
    ]


def test_graph_tensors_are_roots_and_leaves_labelled_from_params():
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * w
    y = h.sum()
    g = viz.graph(y, params={"x": x, "w": w, "h": h, "not a tensor": 3})
    tensors = [(t["id"], t["role"], t["name"], t["node"]) for t in g["tensors"]]
    assert tensors == [
        ("t0", "root", None, "n0"), ("t1", "leaf", "x", "n2"), ("t2", "leaf", "w", "n3"),
        ("t3", "intermediate", "h", "n1"),
    ]
    nodes = by_id(g["nodes"])
    assert nodes["n2"]["label"] == "AccumulateGrad(x)" and nodes["n3"]["label"] == "AccumulateGrad(w)"
    assert nodes["n1"]["tensor"] == "t3" and nodes["n0"]["tensor"] == "t0"
    x_entry = g["tensors"][1]
    assert x_entry["value"] == {"shape": [3], "dtype": "float32", "numel": 3, "values": [1.0, 2.0, 3.0],
                                "truncated": False}
    assert x_entry["requires_grad"] and x_entry["is_leaf"] and x_entry["grad"] is None
    # MulBackward saved both leaves: the saved tensors point at the tensors they alias.
    # (in PyTorch's pack order: other first)
    assert [(s["name"], s["tensor"]) for s in nodes["n1"]["saved"]] == [("other", "t2"), ("self", "t1")]
    y.backward()
    after = viz.graph(y, params=dict(x=x, w=w))
    assert after["tensors"][1]["grad"]["values"] == [0.5, -1.0, 2.0]
    assert after["tensors"][2]["grad"]["values"] == [1.0, 2.0, 3.0]


def test_graph_params_accepts_named_parameters_pairs():
    lin = kael.nn.Linear(3, 2)
    out = lin(kael.ones(4, 3)).sum()
    g = viz.graph(out, params=lin.named_parameters())
    assert sorted(t["name"] for t in g["tensors"] if t["role"] == "leaf") == ["bias", "weight"]
    with pytest.raises(TypeError, match="params must be a dict"):
        viz.graph(out, params=[1, 2])


def test_graph_saved_tensors_bytes_versions_and_stale_flag():
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y * y
    g = viz.graph(z.sum())
    exp = next(n for n in g["nodes"] if n["name"] == "ExpBackward")
    assert exp["saved"] == [{"name": "result", "shape": [2], "dtype": "float32", "bytes": 8, "version": 0,
                             "current_version": 0, "stale": False, "stale_message": None, "tensor": None,
                             "value": viz.tensor_data(y)}]
    assert g["totals"]["saved_tensors"] == 3 and g["totals"]["saved_bytes"] == 24
    with kael.no_grad():
        y.add_(1)
    stale = viz.graph(z.sum())
    exp = next(n for n in stale["nodes"] if n["name"] == "ExpBackward")
    assert exp["saved"][0]["version"] == 0 and exp["saved"][0]["current_version"] == 1
    assert exp["saved"][0]["stale"] is True
    assert exp["saved"][0]["stale_message"] == "modified in place after it was saved: version 1, saved at version 0"
    assert exp["saved"][0]["value"] == viz.tensor_data(y)  # what it holds now, after the change


def test_graph_marks_released_nodes_after_backward():
    x, a, b, loss = diamond()
    assert not any(n["released"] for n in viz.graph(loss)["nodes"])
    loss.backward()
    g = viz.graph(loss)
    assert [n["released"] for n in g["nodes"]] == [True, True, True, True, False]
    assert g["totals"]["saved_tensors"] == 0 and all(n["saved"] == [] for n in g["nodes"])


def test_graph_reports_hooks_present():
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    h.register_hook(lambda g: g)
    x.register_hook(lambda g: g)
    y = h.sum()
    y.grad_fn.register_hook(lambda gi, go: None)
    nodes = by_id(viz.graph(y)["nodes"])
    assert nodes["n0"]["hooks"] == {"pre": 0, "post": 1, "tensor": 0, "retains_grad": False}
    assert nodes["n1"]["hooks"] == {"pre": 2, "post": 0, "tensor": 0, "retains_grad": True}
    assert nodes["n2"]["hooks"] == {"pre": 0, "post": 0, "tensor": 1, "retains_grad": False}


def test_graph_accepts_nodes_lists_and_roots_without_grad():
    x, a, b, loss = diamond()
    from_node = viz.graph(loss.grad_fn)
    assert from_node["tensors"][0]["role"] == "leaf" and from_node["roots"] == ["n0"]
    both = viz.graph([a, b], params=dict(a=a, b=b))
    assert both["roots"] == ["n0", "n1"] and [t["name"] for t in both["tensors"][:2]] == ["a", "b"]
    assert both["totals"]["nodes"] == 3
    plain = viz.graph(kael.ones(2))
    assert plain["roots"] == [None] and plain["nodes"] == [] and plain["tensors"][0]["node"] is None
    check_graph(plain)
    with pytest.raises(TypeError, match="expects a tensor"):
        viz.graph("loss")


def test_tensor_data_is_exact_truncated_and_strict_json():
    t = kael.tensor([1.0 / 3.0, float("nan"), float("inf"), -float("inf")], dtype=kael.float64)
    data = viz.tensor_data(t)
    assert data["values"] == [1.0 / 3.0, "NaN", "Infinity", "-Infinity"]
    strict_json(data)
    assert viz.format_values(data) == "[0.3333, nan, inf, -inf]"
    big = viz.tensor_data(kael.arange(12.0).reshape(3, 4), max_values=5)
    assert big == {"shape": [3, 4], "dtype": "float32", "numel": 12, "values": [0.0, 1.0, 2.0, 3.0, 4.0],
                   "truncated": True}
    assert viz.format_values(big) == "shape [3, 4]: 0, 1, 2, ..."
    assert viz.format_values(viz.tensor_data(kael.tensor([[1.0, 2.0], [3.0, 4.5]]))) == "[[1, 2], [3, 4.5]]"
    assert viz.format_values(viz.tensor_data(kael.tensor(1.0))) == "1"


def _frame_depth():
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def test_graph_of_a_10000_node_chain_needs_no_recursion():
    x = kael.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y + 1
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_frame_depth() + 120)
    try:
        g = viz.graph(y, params=dict(x=x))
        dot = viz.to_dot(y)
        text = viz.to_text(g)
        with viz.trace(params=dict(x=x)) as tr:
            y.backward()
        table = tr.table()
        strict_json(g)
    finally:
        sys.setrecursionlimit(limit)
    assert g["totals"]["nodes"] == 10_001 and g["nodes"][-1]["label"] == "AccumulateGrad"
    assert g["nodes"][10_000]["id"] == "n10000"
    assert dot.count("->") >= 10_000
    assert text.splitlines()[-1] == "10001 nodes, 0 saved tensors, 0 bytes saved"
    assert len(text.splitlines()) < 300
    assert len(events(tr, "step")) == 10_001 and x.grad.tolist() == [1.0]
    assert table.splitlines()[-1].endswith("x.grad = [1]")


# -- trace -----------------------------------------------------------------------------------

DIAMOND_TABLE = """\
step  node            incoming gradient   result
1     SumBackward     1 (seed, shape [])  [1, 1] to AddBackward
2     AddBackward     [1, 1]              [1, 1] to MulBackward(a); [1, 1] to MulBackward(b)
3     MulBackward(b)  [1, 1]              [3, 3] buffered for AccumulateGrad, count 2 -> 1
4     MulBackward(a)  [1, 1]              [2, 2] added to the buffer of AccumulateGrad: [5, 5], count 1 -> 0
5     AccumulateGrad  [5, 5]              x.grad = [5, 5]"""


def test_trace_of_the_adr_diamond_is_the_adr_table():
    x, a, b, loss = diamond()
    with viz.trace(params=dict(x=x, a=a, b=b)) as tr:
        loss.backward()
    assert tr.table() == DIAMOND_TABLE
    assert x.grad.tolist() == [5.0, 5.0]


def test_trace_of_the_diamond_records_counts_buffers_and_ready_stack():
    x, a, b, loss = diamond()
    with viz.trace(params=dict(x=x, a=a, b=b)) as tr:
        loss.backward()
    check_trace(tr.to_dict())
    start = tr.steps[0]
    assert start["kind"] == "start" and start["pass"] == 0
    assert start["counts"] == {"n0": 0, "n1": 1, "n2": 1, "n3": 1, "n4": 2}
    assert start["ready"] == ["n0"]
    assert start["seeds"] == [{"node": "n0", "grad": {"shape": [], "dtype": "float64", "numel": 1,
                                                       "values": [1.0], "truncated": False}}]
    steps = events(tr, "step")
    assert [s["node"] for s in steps] == ["n0", "n1", "n3", "n2", "n4"]
    assert [s["step"] for s in steps] == [1, 2, 3, 4, 5]
    assert steps[1]["ready"] == ["n2", "n3"]  # b's MulBackward pushed last, so it runs first
    to_acc = [send for s in steps for send in s["sends"] if send["to"] == "n4"]
    assert [(s["count_before"], s["count_after"], s["ready"], s["added"]) for s in to_acc] == [
        (2, 1, False, False), (1, 0, True, True)]
    assert [s["grad"]["values"] for s in to_acc] == [[3.0, 3.0], [2.0, 2.0]]
    assert [s["buffer"]["values"] for s in to_acc] == [[3.0, 3.0], [5.0, 5.0]]
    assert steps[4]["grad"]["values"] == [5.0, 5.0]
    assert steps[4]["accumulated"]["values"] == [5.0, 5.0]
    assert [s["released"] for s in steps] == [True, True, True, True, False]
    assert steps[2]["released_saved"] == ["other"]
    assert tr.passes[0]["completed"] and tr.error is None


def test_trace_node_ids_are_those_of_graph_of_the_same_root():
    x, a, b, loss = diamond()
    before = viz.graph(loss, params=dict(x=x, a=a, b=b))
    named = viz.graph(loss, params=dict(x=x, a=a, b=b, loss=loss))
    with viz.trace(params=dict(x=x, a=a, b=b)) as tr:
        loss.backward()
    # Captured before anything was released: the same graph, except that the caller's variables
    # name the root (``loss``).
    assert tr.graph["nodes"] == before["nodes"] and tr.graph["edges"] == before["edges"]
    assert tr.graph["tensors"] == named["tensors"]
    assert tr.to_dict()["passes"][0]["graph"] is tr.graph


def test_trace_graph_is_the_state_when_the_pass_started_and_grads_come_beside_it():
    # A replay of step 0 draws this graph: x.grad must not be there before AccumulateGrad runs.
    x, a, b, loss = diamond()
    with viz.trace(params=dict(x=x)) as tr:
        loss.backward()
    x_entry = next(t for t in tr.graph["tensors"] if t["name"] == "x")
    assert x_entry["grad"] is None
    assert tr.passes[0]["grads"][x_entry["id"]]["values"] == [5.0, 5.0]
    acc = next(n["id"] for n in tr.graph["nodes"] if n["kind"] == "accumulate")
    writes = [e["step"] for e in tr.steps if e.get("node") == acc and e.get("accumulated")]
    assert writes == [5]


def test_trace_graph_of_a_second_pass_shows_the_grad_the_first_left():
    x, a, b, loss = diamond()
    with viz.trace(params=dict(x=x)) as tr:
        loss.backward(retain_graph=True)
        loss.backward()
    first, second = tr.passes
    x_entry = next(t for t in second["graph"]["tensors"] if t["name"] == "x")
    assert x_entry["grad"]["values"] == [5.0, 5.0]
    assert first["grads"][x_entry["id"]]["values"] == [5.0, 5.0]
    assert second["grads"][x_entry["id"]]["values"] == [10.0, 10.0]


def test_function_nodes_name_their_output_shape():
    # The broadcasting example's bug: [8] + [8, 1] makes [8, 8]; the node says so.
    p = kael.zeros(8, requires_grad=True)
    q = kael.zeros(8, 1)
    g = viz.graph((p + q).sum())
    add = next(n for n in g["nodes"] if n["name"] == "AddBackward")
    assert add["output"] == {"shape": [8, 8], "dtype": "float32"}
    assert next(n for n in g["nodes"] if n["name"] == "SumBackward")["output"]["shape"] == []
    assert next(n for n in g["nodes"] if n["kind"] == "accumulate")["output"]["shape"] == [8]


def test_trace_repeated_input_accumulate_grad_waits_for_count_2():
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    with viz.trace(params=dict(x=x)) as tr:
        (x * x).sum().backward()
    check_trace(tr.to_dict())
    acc = next(n["id"] for n in tr.graph["nodes"] if n["kind"] == "accumulate")
    assert tr.steps[0]["counts"][acc] == 2
    mul = events(tr, "step")[1]
    assert [(s["input_nr"], s["to"], s["count_before"], s["count_after"]) for s in mul["sends"]] == [
        (0, acc, 2, 1), (1, acc, 1, 0)]
    assert mul["sends"][1]["buffer"]["values"] == [2.0, 4.0]
    assert tr.table().splitlines()[-1].split() == ["3", "AccumulateGrad", "[2,", "4]", "x.grad", "=", "[2,", "4]"]
    assert x.grad.tolist() == [2.0, 4.0]


def test_trace_broadcast_bias_gets_its_gradient_through_sum_to():
    w = kael.ones(32, 4, requires_grad=True)
    bias = kael.zeros(4, requires_grad=True)
    out = (w + bias).sum()
    with viz.trace(params=dict(w=w, bias=bias)) as tr:
        out.backward()
    check_trace(tr.to_dict())
    ids = {t["name"]: t["node"] for t in tr.graph["tensors"] if t["name"]}
    add = next(s for s in events(tr, "step") if s["node"] == "n1")
    sends = {s["to"]: s for s in add["sends"]}
    assert sends[ids["w"]]["grad"]["shape"] == [32, 4]
    assert sends[ids["bias"]]["grad"] == {"shape": [4], "dtype": "float32", "numel": 4,
                                          "values": [32.0, 32.0, 32.0, 32.0], "truncated": False}
    acc_bias = next(s for s in events(tr, "step") if s["node"] == ids["bias"])
    assert acc_bias["grad"]["shape"] == [4] and acc_bias["accumulated"]["values"] == [32.0] * 4
    assert "[32, 32, 32, 32] to AccumulateGrad(bias)" in tr.table()
    assert bias.grad.tolist() == [32.0] * 4


def test_trace_of_a_retained_graph_twice_accumulates_and_keeps_ids():
    x, a, b, loss = diamond()
    with viz.trace(params=dict(x=x, a=a, b=b)) as tr:
        loss.backward(retain_graph=True)
        loss.backward(retain_graph=True)
    check_trace(tr.to_dict())
    assert [p["index"] for p in tr.passes] == [0, 1] and all(p["completed"] for p in tr.passes)
    assert tr.passes[0]["graph"]["nodes"] == tr.passes[1]["graph"]["nodes"]
    x_entries = [next(t for t in p["graph"]["tensors"] if t["name"] == "x") for p in tr.passes]
    # Each pass's graph is the state when it started; its grads, the state when it ended.
    assert x_entries[0]["grad"] is None and x_entries[1]["grad"]["values"] == [5.0, 5.0]
    assert [p["grads"][x_entries[0]["id"]]["values"] for p in tr.passes] == [[5.0, 5.0], [10.0, 10.0]]
    first, second = ([e for e in tr.steps if e["pass"] == i and e["kind"] == "step"] for i in (0, 1))
    assert [e["node"] for e in first] == [e["node"] for e in second]
    assert first[-1]["accumulated"]["values"] == [5.0, 5.0]
    assert second[-1]["accumulated"]["values"] == [10.0, 10.0]
    assert not any(e["released"] for e in first + second)
    table = tr.table()
    assert table.startswith("pass 1\nstep") and "\n\npass 2\nstep" in table
    assert table.endswith("x.grad = [10, 10]")
    assert tr.table(pass_index=0) == DIAMOND_TABLE
    # A third pass, traced on its own, sees the same graph ids.
    with viz.trace() as again:
        loss.backward()
    assert [n["id"] for n in again.graph["nodes"]] == [n["id"] for n in tr.graph["nodes"]]
    assert events(again, "step")[-1]["accumulated"]["values"] == [15.0, 15.0]


def test_trace_of_a_failing_backward_records_steps_up_to_the_version_error():
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    loss = (y * y).sum()
    with kael.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as raised:
        with viz.trace(params=dict(x=x, y=y)) as tr:
            loss.backward()
    d = tr.to_dict()
    check_trace(d)
    assert [e["kind"] for e in tr.steps] == ["start", "step", "error"]
    error = tr.steps[-1]
    assert error["node"] == "n1" and error["step"] == 2 and error["type"] == "RuntimeError"
    assert error["message"] == str(raised.value)
    assert error["grad"]["values"] == [1.0, 1.0]
    assert tr.passes[0]["completed"] is False
    assert tr.passes[0]["error"] == {"type": "RuntimeError", "message": str(raised.value), "node": "n1"}
    assert d["error"] == tr.passes[0]["error"]
    mul = by_id(tr.graph["nodes"])["n1"]
    assert [s["stale"] for s in mul["saved"]] == [True, True]
    last = tr.table().splitlines()[-1]
    assert last.startswith("2     MulBackward") and "error: one of the variables needed" in last
    assert engine._tracer is None


def test_trace_records_an_error_raised_before_the_pass_starts():
    y = kael.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError):
        with viz.trace() as tr:
            y.backward()
    assert tr.passes == [] and tr.error["message"] == "grad can be implicitly created only for scalar outputs"
    check_trace(tr.to_dict())
    assert tr.table() == "(no backward pass was traced)\nerror: grad can be implicitly created only for scalar outputs"


def test_trace_of_autograd_grad_captures_and_skips_unneeded_leaves():
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * w).sum()
    with viz.trace(params=dict(x=x, w=w)) as tr:
        (gx,) = kael.autograd.grad(y, [x])
    check_trace(tr.to_dict())
    kinds = [(e["kind"], tr.graph["nodes"][int(e["node"][1:])]["label"]) for e in tr.steps[1:]]
    assert kinds == [("step", "SumBackward"), ("step", "MulBackward"), ("skip", "AccumulateGrad(w)"),
                     ("step", "AccumulateGrad(x)")]
    skip = tr.steps[3]
    assert skip["reason"] == "not needed" and skip["grad"] is None
    last = tr.steps[-1]
    assert last["captured"] == {"inputs": [0], "grad": viz.tensor_data(gx)}
    assert last["accumulated"] is None and x.grad is None
    assert tr.table().splitlines()[-1].endswith("returned as the gradient of inputs[0]")


class _FirstOnly(kael.autograd.Function):
    """y = a + b;  da = g;  db = None (on purpose)"""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g, None


def test_trace_skips_a_node_no_gradient_reached():
    a = kael.tensor([1.0], requires_grad=True)
    b = kael.tensor([2.0], requires_grad=True)
    with viz.trace(params=dict(a=a, b=b)) as tr:
        _FirstOnly.apply(a, b).sum().backward()
    check_trace(tr.to_dict())
    node_of = {t["name"]: t["node"] for t in tr.graph["tensors"] if t["name"]}
    send_b = next(s for e in events(tr, "step") for s in e["sends"] if s["to"] == node_of["b"])
    assert send_b["grad"] is None and send_b["buffer"] is None and send_b["ready"]
    skip = events(tr, "skip")
    assert [(e["node"], e["reason"]) for e in skip] == [(node_of["b"], "no gradient")]
    assert "nothing to AccumulateGrad(b), count 1 -> 0" in tr.table()
    assert "skipped (no gradient reached it)" in tr.table()
    assert b.grad is None and a.grad.tolist() == [1.0]


def test_trace_records_hooks_and_the_gradient_they_produce():
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: g + 1)
    with viz.trace(params=dict(x=x, h=h)) as tr:
        h.sum().backward()
    check_trace(tr.to_dict())
    mul, acc = events(tr, "step")[1:]
    assert [(k["kind"], k["count"]) for k in mul["hooks"]] == [("pre", 1)]
    assert mul["hooks"][0]["grads"][0]["values"] == [10.0, 10.0]
    assert mul["sends"][0]["grad"]["values"] == [30.0, 30.0]
    assert [(k["kind"], k["count"], k["grads"]) for k in acc["hooks"]] == [("tensor", 1, [])]
    assert acc["accumulated"]["values"] == [31.0, 31.0]
    assert "[1, 1] -> [10, 10] (pre-hook)" in tr.table()


def test_trace_gradients_exact_in_data_rounded_in_table():
    x = kael.tensor([3.0], dtype=kael.float64, requires_grad=True)
    with viz.trace(params=dict(x=x)) as tr:
        (x.log() / 7).sum().backward()
    grad = events(tr, "step")[-1]["accumulated"]["values"][0]
    assert grad == pytest.approx(1.0 / 21.0, rel=1e-15, abs=0.0) and grad == x.grad.item()
    assert tr.table().splitlines()[-1].endswith("x.grad = [0.04762]")


def test_trace_restores_the_previous_tracer_and_nests():
    assert engine._tracer is None
    x, a, b, loss = diamond()
    with viz.trace() as outer:
        with viz.trace() as inner:
            assert engine._tracer is inner
            loss.backward(retain_graph=True)
        assert engine._tracer is outer
        loss.backward()
    assert engine._tracer is None
    assert len(inner.passes) == 1 and len(outer.passes) == 1


def test_trace_before_any_pass_has_no_graph():
    with viz.trace() as tr:
        pass
    assert tr.graph is None and tr.steps == [] and tr.to_dict()["passes"] == []


def test_checkpoint_recompute_inside_backward_is_not_traced_as_a_pass():
    from kael.utils.checkpoint import checkpoint

    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda t: (t * t).exp(), x)
    with viz.trace() as tr:
        y.sum().backward()
    assert len(tr.passes) == 1
    check_trace(tr.to_dict())


# -- DOT, show and the display hook -------------------------------------------------------

_DOT_STATEMENT = re.compile(
    r'^  (graph|node|edge) \[.*\];$'
    r'|^  \w+ \[label="(?:[^"\\]|\\.)*"(, [\w]+=(?:\w+|"[^"]*"))*\];$'
    r'|^  \w+ -> \w+( \[(?:[\w]+=(?:\w+|"(?:[^"\\]|\\.)*")(?:, )?)+\])?;$'
)


def test_to_dot_is_well_formed_graphviz_text():
    x, a, b, loss = diamond()
    dot = viz.to_dot(loss, params=dict(x=x, a=a, b=b))
    lines = dot.splitlines()
    assert lines[0] == "digraph kael_autograd {" and lines[-1] == "}"
    for line in lines[1:-1]:
        assert _DOT_STATEMENT.match(line), line
    assert '  n2 [label="MulBackward(a)\\nsaved other []", fillcolor=lightgrey];' in lines
    assert '  n1 -> n3 [label="1"];' in lines
    assert '  n2 -> n2_in1 [style=dotted, label="1"];' in lines  # the constant 2
    assert '  t1 [label="x\\n[2] float64", shape=ellipse, fillcolor=lightblue];' in lines
    assert dot.count("{") == dot.count("}") == 1
    assert viz.to_dot(viz.graph(loss, params=dict(x=x, a=a, b=b))) == dot


def test_to_dot_escapes_quotes_in_names():
    x = kael.ones(2, requires_grad=True)
    dot = viz.to_dot(x.sum(), params={'say "hi"\\': x})
    assert 'label="say \\"hi\\"\\\\\\n[2] float32"' in dot


DIAMOND_TREE = """\
SumBackward  output loss [] float64
  AddBackward
    MulBackward(a)  -> a [2] float64  saved other []
      AccumulateGrad  leaf x [2] float64
      None  [] float64, no gradient
    MulBackward(b)  -> b [2] float64  saved other []
      AccumulateGrad (above)
      None  [] float64, no gradient
5 nodes, 2 saved tensors, 16 bytes saved"""


def test_show_prints_the_graph_as_a_tree(capsys):
    x, a, b, loss = diamond()
    assert viz.show(loss, params=dict(x=x, a=a, b=b)) is None
    assert capsys.readouterr().out == DIAMOND_TREE + "\n"
    loss.backward()
    viz.show(loss, params=dict(x=x))
    out = capsys.readouterr().out
    assert "SumBackward  output loss [] float64  released" in out
    assert "AccumulateGrad  leaf x [2] float64  grad [5, 5]" in out


def test_show_on_a_trace_prints_counts_and_table(capsys):
    x, a, b, loss = diamond()
    with viz.trace(params=dict(x=x, a=a, b=b)) as tr:
        loss.backward()
    viz.show(tr)
    out = capsys.readouterr().out
    assert out == (
        "count_dependencies: AddBackward 1, MulBackward(a) 1, MulBackward(b) 1, AccumulateGrad 2\n"
        + DIAMOND_TABLE + "\n"
    )
    viz.show(tr.to_dict())
    assert capsys.readouterr().out == out


def test_set_display_routes_show_to_the_hook(capsys):
    received = []
    x, a, b, loss = diamond()
    expected = viz.graph(loss, params=dict(x=x, a=a, b=b, loss=loss))  # show() adds the caller's names
    previous = viz.set_display(lambda data: received.append(data) or "drawn")
    try:
        assert viz.get_display() is not None
        assert viz.show(loss, params=dict(x=x)) == "drawn"
        with viz.trace(params=dict(x=x)) as tr:
            loss.backward()
        viz.show(tr)
    finally:
        viz.set_display(previous)
    assert capsys.readouterr().out == ""
    assert [d["kind"] for d in received] == ["graph", "trace"]
    assert received[0] == expected
    assert received[1] == tr.to_dict()
    check_graph(received[0])
    check_trace(received[1])
    assert viz.get_display() is previous
    with pytest.raises(TypeError, match="callable"):
        viz.set_display("print")


def test_to_json_is_strict_json_of_the_same_data():
    x, a, b, loss = diamond()
    assert json.loads(viz.to_json(loss, params=dict(x=x))) == viz.graph(loss, params=dict(x=x))
    with viz.trace() as tr:
        loss.backward()
    assert json.loads(viz.to_json(tr)) == tr.to_dict()
