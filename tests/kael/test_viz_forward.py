"""kael.viz.forward: the learner's own file recorded line by line (sys.monitoring on 3.12+,
sys.settrace on 3.11): tensor locals, the nodes each line recorded, saved bytes, the cap, and
graphs made meanwhile marking where each node was recorded."""

from __future__ import annotations

import sys

import pytest

import kael
import kael.viz as viz

DIAMOND = """import kael
x = kael.tensor([1.0, 2.0], dtype=kael.float64, requires_grad=True)
a = x * 2
b = x * 3
loss = (a + b).sum()
loss.backward()
"""


def record(source, filename="main.py", **kwargs):
    namespace = {"__name__": "__main__"}
    with viz.forward(filename, **kwargs) as rec:
        exec(compile(source, filename, "exec"), namespace)
    return rec.to_dict(), namespace


def by_line(doc):
    return {s["line"]: s for s in doc["steps"]}


def test_diamond_steps_name_each_lines_new_nodes_and_saved_bytes():
    doc, _ = record(DIAMOND)
    assert [s["line"] for s in doc["steps"]] == [1, 2, 3, 4, 5, 6]
    steps = by_line(doc)
    assert [n["name"] for n in steps[2]["nodes"]] == []  # a leaf has no node until an op uses it
    assert sorted(n["name"] for n in steps[3]["nodes"]) == ["AccumulateGrad", "MulBackward"]
    assert [n["name"] for n in steps[4]["nodes"]] == ["MulBackward"]
    assert [n["name"] for n in steps[5]["nodes"]] == ["SumBackward", "AddBackward"]
    assert steps[6]["nodes"] == []
    # x * 2 saves the constant 2 (a 0-d float64: 8 bytes) to compute x's gradient.
    assert [(s["name"], s["shape"], s["bytes"]) for s in steps[3]["saved"]] == [("other", [], 8)]
    # Held until the backward on line 6 releases them.
    assert [s["held_bytes"] for s in doc["steps"]] == [0, 0, 8, 16, 16, 0]
    assert doc["nodes"] == 5 and doc["truncated"] is False and doc["kind"] == "forward"


def test_locals_list_shape_dtype_requires_grad_grad_fn_and_version():
    doc, _ = record(DIAMOND + "with kael.no_grad():\n    x.mul_(2)\n")
    steps = by_line(doc)
    a = next(v for v in steps[3]["locals"] if v["name"] == "a")
    assert a == {"name": "a", "shape": [2], "dtype": "float64", "requires_grad": True, "is_leaf": False,
                 "grad_fn": "MulBackward", "node": a["node"], "version": 0}
    mul = next(n for n in steps[3]["nodes"] if n["name"] == "MulBackward")
    assert a["node"] == mul["order"]
    x = next(v for v in steps[2]["locals"] if v["name"] == "x")
    assert x["grad_fn"] is None and x["node"] is None and x["is_leaf"]
    assert next(v for v in steps[8]["locals"] if v["name"] == "x")["version"] == 1


def test_graph_marks_where_each_node_was_recorded_and_trace_inside_shares_them():
    source = DIAMOND.replace("loss.backward()", "with kael.viz.trace() as tr:\n    loss.backward()")
    doc, namespace = record(source)
    lines = {n["label"]: n["recorded"]["line"] for n in doc["graph"]["nodes"]}
    assert lines == {"SumBackward": 5, "AddBackward": 5, "MulBackward(a)": 3, "MulBackward(b)": 4, "AccumulateGrad": 3}
    assert doc["graph"]["roots"] == ["n0"] and doc["graph"]["tensors"][0]["name"] == "loss"
    traced = namespace["tr"].graph
    assert namespace["tr"].during == [{"step": 7, "line": 7}]  # the pass ran in line 7, step 7
    assert [n["recorded"] for n in traced["nodes"]] == [n["recorded"] for n in doc["graph"]["nodes"]]
    # Outside a recording, graphs carry no marks.
    assert all(n["recorded"] is None for n in viz.graph(namespace["loss"])["nodes"])


def test_only_the_named_file_is_stepped_and_calls_count_on_the_callers_line():
    helper = "def f(t):\n    return t * 2\n"
    namespace = {"__name__": "helper"}
    exec(compile(helper, "helper.py", "exec"), namespace)
    source = "import kael\nx = kael.ones(3, requires_grad=True)\ny = f(x)\n"
    main = {"__name__": "__main__", "f": namespace["f"]}
    with viz.forward("main.py") as rec:
        exec(compile(source, "main.py", "exec"), main)
    doc = rec.to_dict()
    assert [s["line"] for s in doc["steps"]] == [1, 2, 3]
    assert sorted(n["name"] for n in doc["steps"][2]["nodes"]) == ["AccumulateGrad", "MulBackward"]


def test_a_function_of_the_file_is_stepped_in_its_own_frame():
    source = "import kael\ndef f(t):\n    u = t * 2\n    return u\nx = kael.ones(2, requires_grad=True)\ny = f(x)\n"
    doc, _ = record(source)
    inner = [s for s in doc["steps"] if s["function"] == "f"]
    assert [s["line"] for s in inner] == [3, 4]
    assert [v["name"] for v in inner[0]["locals"]] == ["t", "u"]
    assert sorted(n["name"] for n in inner[0]["nodes"]) == ["AccumulateGrad", "MulBackward"]


def test_a_long_loop_is_cut_at_the_cap_with_the_line_it_stopped_at():
    source = "import kael\ny = kael.ones(2, requires_grad=True)\nfor i in range(1000):\n    y = y * 1.0\nz = y.sum()\n"
    doc, namespace = record(source, max_steps=50)
    assert len(doc["steps"]) == 50 and doc["truncated"] is True
    assert doc["stopped_at"] in (3, 4) and doc["max_steps"] == 50
    assert namespace["z"].shape == ()  # the program itself ran to the end
    # Watching stopped with the cap: nothing is left installed.
    if hasattr(sys, "monitoring"):
        assert all(sys.monitoring.get_tool(i) != "kael.viz.forward" for i in range(6))
    else:
        assert sys.gettrace() is None or sys.gettrace().__module__ != "kael.viz.watch"


def test_an_error_in_the_program_keeps_the_steps_before_it_and_stops_watching():
    source = "import kael\nx = kael.ones(2, requires_grad=True)\ny = x * 2\nraise ValueError('boom')\n"
    namespace = {"__name__": "__main__"}
    with pytest.raises(ValueError):
        with viz.forward("main.py") as rec:
            exec(compile(source, "main.py", "exec"), namespace)
    assert [s["line"] for s in rec.to_dict()["steps"]] == [1, 2, 3, 4]
    doc, _ = record("import kael\nx = kael.ones(1)\n")  # a second recording works as the first
    assert [s["line"] for s in doc["steps"]] == [1, 2]


def test_text_lists_one_line_per_step():
    doc, _ = record(DIAMOND, max_steps=3)
    text = viz.to_text(doc)
    assert text.splitlines()[2].split()[:3] == ["3", "line", "3"]
    assert text.endswith("(cut after 3 steps, at line 4)")



def test_to_dict_can_leave_the_graph_out():
    namespace = {"__name__": "__main__"}
    with viz.forward("main.py") as rec:
        exec(compile(DIAMOND, "main.py", "exec"), namespace)
    assert rec.to_dict(with_graph=False)["graph"] is None
    assert rec.to_dict()["graph"]["totals"]["nodes"] == 5


def test_held_bytes_fall_when_a_graph_is_dropped_or_released():
    source = ("import kael\nw = kael.ones(4, dtype=kael.float64, requires_grad=True)\n"
              "for i in range(3):\n    loss = (w * w).sum()\n    del loss\n"
              "y = (w * w).sum()\ny.backward(retain_graph=True)\nz = (w * w).sum()\nz.backward()\n")
    doc, _ = record(source)
    held = {(s["line"], i): s["held_bytes"] for i, s in enumerate(doc["steps"])}
    # w * w saves both inputs: 2 x 32 bytes while the graph lives, nothing once it is dropped.
    assert [b for (line, _), b in held.items() if line == 4] == [64, 64, 64]
    assert [b for (line, _), b in held.items() if line == 5] == [0, 0, 0]
    steps = {s["line"]: s["held_bytes"] for s in doc["steps"]}
    assert steps[6] == 64 and steps[7] == 64  # retain_graph keeps them
    assert steps[8] == 128 and steps[9] == 64  # z's backward releases z's, y's graph still holds


def test_the_node_cap_cuts_the_recording_and_keeps_the_graph_as_it_stood():
    source = "import kael\ny = kael.ones(2, requires_grad=True)\nfor i in range(100):\n    y = y * 1.0\ndel y\n"
    doc, _ = record(source, max_nodes=10)
    assert doc["truncated"] is True and doc["cut_by"] == "nodes" and doc["max_nodes"] == 10
    assert doc["nodes"] == 10
    # The program dropped the chain at its end; the document has it as the last step saw it.
    assert doc["graph"]["totals"]["nodes"] == 10 and doc["graph_nodes"] == 10
    assert viz.to_text(doc).endswith(f"(cut after 10 nodes, at line {doc['stopped_at']})")


def test_a_graph_past_the_drawing_cap_is_left_out(monkeypatch):
    monkeypatch.setattr(sys.modules["kael.viz.forward"], "MAX_GRAPH_NODES", 5)
    source = "import kael\ny = kael.ones(2, requires_grad=True)\nfor i in range(10):\n    y = y * 1.0\n"
    doc, _ = record(source)
    assert doc["graph"] is None and doc["graph_nodes"] == 6 and doc["max_graph_nodes"] == 5


def test_trace_caps_passes_and_graph_size_and_counts_the_rest():
    w = kael.ones(3, requires_grad=True)
    with viz.trace(max_passes=2, max_nodes=50) as tr:
        for _ in range(4):
            (w * 2).sum().backward()
        y = w
        for _ in range(60):
            y = y * 1.0
        y.sum().backward()
    assert len(tr.passes) == 2 and tr.untraced == 3
    assert {e["pass"] for e in tr.steps} == {0, 1}
    z = w
    for _ in range(60):
        z = z * 1.0
    with viz.trace(max_nodes=50) as big:
        z.sum().backward()
    assert big.passes == [] and big.untraced == 1 and big.largest_untraced == 62
    assert w.grad is not None  # untraced passes still ran
