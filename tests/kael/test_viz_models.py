"""kael.viz on real models (issue 14): module boxes, learner's names, values, activation memory.

Seeded generators build the models and expressions; everything runs on both array backends and
inside Pyodide (the notebook-sized memory example only on numpy, the same formula scaled down
everywhere).
"""

import gc
import json
import random
import sys
import threading

import pytest

import kael
import kael.viz as viz
from kael.utils.checkpoint import checkpoint
from kael.viz.modules import record_modules

nn = kael.nn


def mlp_2_16_16_1():
    return nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))


def modules_of(g):
    return {m["id"]: m for m in g["modules"]}


def owner(g, node):
    m = modules_of(g).get(node["module"])
    return None if m is None else m["path"]


# -- module boundaries -------------------------------------------------------------------------


def test_mlp_nodes_belong_to_their_linear_and_parameters_to_its_accumulate_grad():
    kael.manual_seed(0)
    model = mlp_2_16_16_1()
    x = kael.randn(8, 2)
    with record_modules():
        loss = (model(x) ** 2).mean()
    g = viz.graph(loss)
    mods = modules_of(g)
    assert [(m["path"], m["type"]) for m in g["modules"]][0] == ("", "Sequential")
    assert sorted((m["path"], m["type"]) for m in g["modules"][1:]) == [
        ("0", "Linear"), ("1", "Tanh"), ("2", "Linear"), ("3", "Tanh"), ("4", "Linear"),
    ]
    assert all(m["parent"] == g["modules"][0]["id"] for m in g["modules"][1:])
    assert next(m for m in g["modules"] if m["path"] == "0")["extra"] == "in_features=2, out_features=16, bias=True"
    for node in g["nodes"]:
        path = owner(g, node)
        if node["name"] in ("PowBackward", "MeanBackward", "DivBackward", "SumBackward"):
            assert path is None  # the loss is computed outside the model
        elif node["kind"] == "accumulate":
            assert node["label"] in {f"AccumulateGrad({p}.{w})" for p in "024" for w in ("weight", "bias")}
            assert node["label"].startswith(f"AccumulateGrad({path}.")
        else:
            assert mods[node["module"]]["type"] == {"TanhBackward": "Tanh"}.get(node["name"], "Linear")
    assert all("[n" not in n["label"] for n in g["nodes"])


def test_nested_modules_get_dotted_paths_and_the_input_history_stays_outside():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 4)
            self.fc2 = nn.Linear(4, 3)

        def forward(self, x):
            return self.fc2(self.fc1(x).relu()) + x

    kael.manual_seed(1)
    model = nn.Sequential(Block(), Block())
    x = kael.randn(2, 3, requires_grad=True)
    with record_modules():
        h = x * 2  # made before the model: not the model's
        out = model(h).sum()
    g = viz.graph(out)
    paths = {n["label"]: owner(g, n) for n in g["nodes"]}
    assert paths["SumBackward"] is None and paths["MulBackward"] is None
    assert sorted({p for p in paths.values() if p}) == ["0", "0.fc1", "0.fc2", "1", "1.fc1", "1.fc2"]
    relus = [n for n in g["nodes"] if n["name"] == "ReluBackward"]
    assert sorted(owner(g, n) for n in relus) == ["0", "1"]  # .relu() inside Block.forward


def test_recording_off_records_nothing_and_module_calls_still_work():
    kael.manual_seed(0)
    model = mlp_2_16_16_1()
    loss = model(kael.randn(4, 2)).sum()
    g = viz.graph(loss)
    assert g["modules"] == [] and all(n["module"] is None for n in g["nodes"])
    assert not viz.modules.is_recording()


@pytest.mark.parametrize("seed", range(4))
def test_random_nestings_tag_every_module_node_with_its_innermost_call(seed):
    rng = random.Random(seed)

    def make(depth):
        if depth == 0 or rng.random() < 0.3:
            return rng.choice([lambda: nn.Linear(3, 3), nn.Tanh, nn.ReLU])()
        return nn.Sequential(*[make(depth - 1) for _ in range(rng.randint(1, 3))])

    model = nn.Sequential(*[make(3) for _ in range(rng.randint(1, 3))])
    expected = {}  # the innermost module each leaf-module call belongs to, by path
    for path, m in model.named_modules():
        if not m._modules:
            expected[path] = type(m).__name__
    with record_modules():
        out = model(kael.randn(2, 3, requires_grad=True)).sum()
    g = viz.graph(out)
    mods = modules_of(g)
    for node in g["nodes"]:
        if node["module"] is None:
            continue
        m = mods[node["module"]]
        if node["kind"] == "function":
            assert expected.get(m["path"]) == m["type"]  # a function node sits in a leaf module
        parent = m["parent"]
        while parent is not None:  # every ancestor is listed, its path a prefix
            assert m["path"].startswith(mods[parent]["path"])
            parent = mods[parent]["parent"]


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide cannot start threads")
def test_each_thread_records_its_own_module_calls():
    kael.manual_seed(0)
    models = [mlp_2_16_16_1() for _ in range(4)]
    inputs = [kael.randn(3, 2) for _ in range(4)]
    outs = [None] * 4
    barrier = threading.Barrier(4)

    def work(i):
        barrier.wait()
        for _ in range(5):
            outs[i] = models[i](inputs[i]).sum()

    with record_modules():
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for i in range(4):
        g = viz.graph(outs[i])
        assert sorted(m["path"] for m in g["modules"]) == ["", "0", "1", "2", "3", "4"]


# -- names a learner wrote -----------------------------------------------------------------------


def test_show_names_tensors_from_the_callers_variables_where_unambiguous():
    received = []
    previous = viz.set_display(received.append)
    try:
        x = kael.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = x * 3
        same_as_b = b  # b now has two names: ambiguous, so unnamed
        _hidden = a  # noqa: F841 - a private name does not count
        loss = (a + b).sum()
        viz.show(loss)
    finally:
        viz.set_display(previous)
    g = received[0]
    assert [n["label"] for n in g["nodes"]] == [
        "SumBackward", "AddBackward", "MulBackward(a)", "MulBackward #2", "AccumulateGrad",
    ]
    names = {t["name"] for t in g["tensors"]}
    assert {"x", "a", "loss"} <= names and "b" not in names and "same_as_b" not in names


def test_show_names_a_models_parameters_and_params_wins_over_variables():
    received = []
    previous = viz.set_display(received.append)
    try:
        kael.manual_seed(0)
        model = nn.Linear(2, 1)
        x = kael.randn(3, 2)
        out = model(x).sum()
        viz.show(out, params={"W": model.weight})
    finally:
        viz.set_display(previous)
    names = {t["name"] for t in received[0]["tensors"]}
    assert {"W", "model.bias", "out"} <= names and "model.weight" not in names


def test_trace_reads_the_callers_variables_when_the_pass_starts():
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    with viz.trace() as tr:
        y = x * x
        loss = y.sum()
        loss.backward()
    tensors = {t["name"]: t for t in tr.graph["tensors"]}
    assert tensors["x"]["grad"] is None  # the graph as the pass found it
    assert tr.passes[-1]["grads"][tensors["x"]["id"]]["values"] == [2.0, 4.0]  # as it left it
    assert tensors["loss"]["role"] == "root" and tensors["y"]["role"] == "intermediate"


@pytest.mark.parametrize("seed", range(6))
def test_no_label_shows_an_internal_id_and_labels_are_unique(seed):
    rng = random.Random(seed)
    x = kael.tensor([0.5, 1.5, 2.5], requires_grad=True)
    w = kael.tensor([1.0, -1.0, 2.0], requires_grad=True)
    terms = [x, w]
    for _ in range(rng.randint(3, 25)):
        a, b = rng.choice(terms), rng.choice(terms)
        terms.append(rng.choice([lambda: a * b, lambda: a + b, lambda: a.tanh(), lambda: a * 0.5])())
    g = viz.graph(terms[-1].sum(), params=dict(x=x, w=w))
    labels = [n["label"] for n in g["nodes"]]
    assert len(set(labels)) == len(labels)
    assert not any("[n" in label for label in labels)


# -- values and stale saved tensors ----------------------------------------------------------------


def test_inplace_example_lists_w_as_a_constant_and_says_why_the_saved_tensor_is_stale():
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = kael.tensor([0.5, -1.0, 2.0])
    y = x * w
    w.mul_(2)
    g = viz.graph(y.sum(), params=dict(x=x, w=w))
    const = next(t for t in g["tensors"] if t["name"] == "w")
    assert const["role"] == "constant" and const["node"] is None and not const["requires_grad"]
    mul = next(n for n in g["nodes"] if n["name"] == "MulBackward")
    other = next(s for s in mul["saved"] if s["tensor"] == const["id"])
    assert other["stale_message"] == "modified in place after it was saved: version 1, saved at version 0"
    assert other["value"]["values"] == [1.0, -2.0, 4.0]  # what it holds now


# -- activation memory -------------------------------------------------------------------------------


def _silu_mlp(x, w1, w2):
    return nn.functional.silu(x @ w1) @ w2


def _memory_logs(n, d, h):
    kael.manual_seed(0)
    X = kael.randn(n, d, requires_grad=True)
    W1 = kael.randn(d, h, requires_grad=True)
    W2 = kael.randn(h, d, requires_grad=True)
    with viz.memory("plain") as plain:
        _silu_mlp(X, W1, W2).sum().backward()
    with viz.memory("checkpoint") as ckpt:
        checkpoint(_silu_mlp, X, W1, W2, use_reentrant=False).sum().backward()
    return plain.to_dict(), ckpt.to_dict()


def _check_memory(doc):
    """Replays the events: ``held_bytes`` counts each storage held by live saves once (the
    bytes of its largest live save), ``held_tensors`` counts the live saves."""
    assert doc["kind"] == "memory" and json.loads(json.dumps(doc, allow_nan=False)) == doc
    live = {}  # save id -> (storage, bytes)
    for e in doc["events"]:
        if e["kind"] == "save":
            assert e["id"] not in live
            live[e["id"]] = (e["storage"], e["bytes"])
        else:
            assert live.pop(e["id"])[0] == e["storage"]
        counted = {}
        for storage, nbytes in live.values():
            counted[storage] = max(counted.get(storage, 0), nbytes)
        assert e["held_bytes"] == sum(counted.values()) and e["held_tensors"] == len(live)
    assert not live and doc["events"][-1]["held_bytes"] == 0  # backward freed every saved tensor
    assert doc["totals"]["peak_bytes"] == max(e["held_bytes"] for e in doc["events"])


@pytest.mark.parametrize("n,d,h", [(4, 8, 16), (8, 32, 128), (2, 3, 5)])
def test_memory_counts_what_the_forward_saved_and_the_backward_freed(n, d, h):
    plain, ckpt = _memory_logs(n, d, h)
    for doc in (plain, ckpt):
        _check_memory(doc)
    itemsize = 4
    assert plain["totals"]["forward_tensors"] == 5
    assert plain["totals"]["forward_bytes"] == itemsize * (n * d + d * h + 2 * n * h + h * d)
    assert ckpt["totals"]["forward_tensors"] == 3
    assert ckpt["totals"]["forward_bytes"] == itemsize * (n * d + d * h + h * d)
    saves = [(e["node"], e["name"]) for e in plain["events"] if e["kind"] == "save"]
    assert saves == [("MatmulBackward", "self"), ("MatmulBackward", "mat2"), ("SiluBackward", "self"),
                     ("MatmulBackward", "self"), ("MatmulBackward", "mat2")]
    recomputed = [e for e in ckpt["events"] if e["kind"] == "save" and e["phase"] == "backward"]
    assert len(recomputed) == 5  # the checkpoint's recomputation saves inside backward
    # It saves X, W1 and W2 again while the forward's saves of them are still held: the same
    # memory, held once. So checkpoint's peak is the plain peak (the weights dominate here),
    # and what it saves is the activations held between forward and backward.
    forward_storages = {e["storage"] for e in ckpt["events"] if e["kind"] == "save" and e["phase"] == "forward"}
    assert sum(e["storage"] in forward_storages for e in recomputed) == 3
    assert ckpt["totals"]["peak_bytes"] == plain["totals"]["peak_bytes"] == plain["totals"]["forward_bytes"]
    assert max(e["held_bytes"] for e in ckpt["events"] if e["phase"] == "forward") == ckpt["totals"]["forward_bytes"]


def test_memory_holds_a_storage_saved_twice_once():
    x = kael.randn(3, 4, requires_grad=True)
    with viz.memory() as mem:
        y = x * x  # x saved twice: one storage
        v = x[1:]  # a view of x, saved twice: the same storage again, smaller
        z = y.sum() + (v * v).sum()
    saves = [e for e in mem.to_dict()["events"] if e["kind"] == "save"]
    assert [e["bytes"] for e in saves] == [48, 48, 32, 32]
    assert {e["storage"] for e in saves} == {"m0"}
    assert [e["held_bytes"] for e in saves] == [48, 48, 48, 48]
    assert mem.held_bytes == 48 and mem.held_tensors == 4
    del y, z
    gc.collect()
    assert mem.held_bytes == 0 and mem.held_tensors == 0
    _check_memory(mem.to_dict())


@pytest.mark.skipif(kael.backend_name() != "numpy", reason="notebook sizes: matrix products too slow in pure Python")
def test_memory_of_the_notebook_example_has_its_byte_counts():
    plain, ckpt = _memory_logs(64, 256, 1024)
    assert (plain["totals"]["forward_tensors"], plain["totals"]["forward_bytes"]) == (5, 2_686_976)
    assert (ckpt["totals"]["forward_tensors"], ckpt["totals"]["forward_bytes"]) == (3, 2_162_688)
    assert "forward saved 5 tensors, 2686976 bytes" in viz.to_text(plain)


def _saves(doc):
    return [(e["node"], e["name"]) for e in doc["events"] if e["kind"] == "save"]


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide cannot start threads")
def test_memory_names_each_save_by_its_node_in_every_thread_without_reading_frames():
    # kael notes the saving node for the pack hook (saved.saving_node), per thread: two threads
    # saving at once, each in its own log, get their own nodes and names; outside a pack hook
    # there is no saver.
    import threading

    from kael.autograd.saved import saving_node

    start = threading.Barrier(2)
    docs = {}

    def work(k):
        x = kael.randn(3, 4, requires_grad=True)
        w = kael.randn(4, 2, requires_grad=True)
        start.wait()
        with viz.memory(str(k)) as log:
            for _ in range(20):
                y = (x @ w).tanh() if k == 0 else x.exp() * x
            del y
        docs[k] = log.to_dict()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _saves(docs[0]) == [("MatmulBackward", "self"), ("MatmulBackward", "mat2"), ("TanhBackward", "result")] * 20
    assert _saves(docs[1]) == [("ExpBackward", "result"), ("MulBackward", "other"), ("MulBackward", "self")] * 20
    assert saving_node() is None
