"""The backward graph reachable from some tensors, as plain JSON-able data (``kael.viz.graph``).

The walk is breadth-first from the roots, inputs in ``input_nr`` order, with an explicit queue:
node ids ``n0, n1, ...`` and edge ids ``e0, e1, ...`` follow that order, so the same graph always
gets the same ids. A trace captures its graph with this same walk when the backward pass starts,
which is why its node ids match ``graph()`` of the same root. SCHEMA.md describes every field.
"""

from __future__ import annotations

import math

from ..autograd.engine import gradient_edge
from ..autograd.node import AccumulateGrad, Node
from ..tensor import Tensor
from .forward import recorded_at
from .modules import module_entries, parameter_name

__all__ = ["graph", "SCHEMA_VERSION", "MAX_VALUES", "tensor_data"]

SCHEMA_VERSION = 1
MAX_VALUES = 1000  # values kept per tensor in the data; beyond that ``truncated`` is true


# -- tensors as data ------------------------------------------------------------------------


def _number(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    return v


def tensor_data(t, max_values=MAX_VALUES) -> dict:
    """``{"shape", "dtype", "numel", "values", "truncated"}``: the values exact, flattened in
    row-major order, at most ``max_values`` of them; NaN and infinities as strings."""
    shape = [int(s) for s in t.shape]
    numel = 1
    for s in shape:
        numel *= s
    flat = t.detach().reshape(-1)
    truncated = max_values is not None and numel > max_values
    if truncated:
        flat = flat[:max_values]
    return {
        "shape": shape,
        "dtype": t.dtype.name,
        "numel": numel,
        "values": [_number(v) for v in flat.tolist()],
        "truncated": truncated,
    }


def _maybe_data(t, max_values):
    return None if t is None else tensor_data(t, max_values)


# -- arguments ------------------------------------------------------------------------------


def as_roots(root) -> tuple:
    """``(tensors, nodes)`` for a tensor, a node, or a list/tuple of them; ``tensors[i]`` is
    ``None`` where a node was given."""
    items = list(root) if isinstance(root, (list, tuple)) else [root]
    tensors, nodes = [], []
    for item in items:
        if isinstance(item, Tensor):
            tensors.append(item)
            nodes.append(gradient_edge(item))
        elif isinstance(item, Node):
            tensors.append(None)
            nodes.append(item)
        else:
            raise TypeError(
                f"kael.viz expects a tensor, a grad_fn node or a list of them, got {type(item).__name__}"
            )
    return tensors, nodes


def named_tensors(params) -> list:
    """``[(name, tensor)]`` from a dict or an iterable of pairs (``named_parameters()``).

    Values that are not tensors are ignored, so ``params=locals()`` names every tensor in scope.
    """
    if params is None:
        return []
    items = params.items() if hasattr(params, "items") else params
    named = []
    for pair in items:
        try:
            name, t = pair
        except (TypeError, ValueError):
            raise TypeError(
                "params must be a dict of name -> tensor or an iterable of (name, tensor) pairs, "
                f"got an item {pair!r}"
            ) from None
        if isinstance(t, Tensor):
            named.append((str(name), t))
    return named


# -- the walk -------------------------------------------------------------------------------


def walk(root_nodes) -> list:
    """Every node reachable from ``root_nodes``, breadth-first, inputs in order, each once."""
    order, seen = [], set()
    for node in root_nodes:
        if node is not None and node not in seen:
            seen.add(node)
            order.append(node)
    i = 0
    while i < len(order):
        node = order[i]
        i += 1
        for ni in node.inputs:
            edge = ni.edge
            if edge is not None and edge not in seen:
                seen.add(edge)
                order.append(edge)
    return order


def _first_doc_line(node):
    doc = type(node).__doc__
    if not doc:
        return None
    for line in doc.strip().splitlines():
        if line.strip():
            return line.strip()
    return None


def _hooks(node, kind):
    pre = node._pre_hooks or ()
    leaf_hooks = 0
    if kind == "accumulate":
        meta = node.variable._meta
        leaf_hooks = len(meta.hooks or ()) if meta is not None else 0
    return {
        "pre": len(pre),
        "post": len(node._hooks or ()),
        "tensor": leaf_hooks,
        "retains_grad": any(getattr(h, "retains_grad", False) for h in pre),
    }


class _Names:
    """The names ``params`` gives: tensors by identity, and the named tensors with history."""

    def __init__(self, params, ids):
        named = named_tensors(params)
        self.of = {}  # id(tensor) -> name, first name wins
        for name, t in named:
            self.of.setdefault(id(t), name)
        self.output_of = {}  # grad_fn node -> (name, tensor)
        for name, t in named:
            fn = t.grad_fn
            if fn is not None and fn in ids and fn not in self.output_of:
                self.output_of[fn] = (name, t)
        self.constants = [(name, t) for name, t in named if not t.requires_grad]

    def of_node(self, node):
        if isinstance(node, AccumulateGrad):
            return self.of.get(id(node.variable)) or parameter_name(node)
        return self.output_of[node][0] if node in self.output_of else None


class _Tensors:
    """The tensor entries: roots, leaves in walk order, named intermediates, named constants."""

    def __init__(self, ids, names, max_values):
        self.ids, self.names, self.max_values = ids, names, max_values
        self.entries, self.objects = [], []  # parallel: entry dict, the tensor
        self.by_tensor = {}  # id(tensor) -> tensor id
        self.storage_owner = {}  # id(storage) -> tensor id
        self.of_node = {}  # node -> tensor id

    def add(self, t, role, node):
        key = id(t)
        if key in self.by_tensor:
            return self.by_tensor[key]
        tid = f"t{len(self.entries)}"
        self.by_tensor[key] = tid
        self.storage_owner.setdefault(id(t._storage), tid)
        self.entries.append(tensor_entry(t, tid, role, self.names.of.get(key), self.ids.get(node), self.max_values))
        self.objects.append(t)
        if node is not None and node in self.ids:
            self.of_node.setdefault(node, tid)
        return tid


def tensor_entry(t, tid, role, name, node_id, max_values) -> dict:
    meta = t._meta
    return {
        "id": tid,
        "role": role,
        "name": name,
        "shape": [int(s) for s in t.shape],
        "dtype": t.dtype.name,
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "retains_grad": meta is not None and meta.retains_grad,
        "node": node_id,
        "version": t._storage.version,
        "value": tensor_data(t, max_values),
        "grad": _maybe_data(t.grad, max_values),
    }


def grads_of(entries, objects, max_values=MAX_VALUES) -> dict:
    """``{tensor id: grad}`` of the listed tensors now (a trace's pass, once it ended)."""
    return {entry["id"]: _maybe_data(t.grad, max_values) for entry, t in zip(entries, objects)}


def _list_tensors(tensors, root_nodes, order, ids, names, max_values) -> _Tensors:
    listed = _Tensors(ids, names, max_values)
    for t, node in zip(tensors, root_nodes):
        if t is not None:
            listed.add(t, "root", node)
    for node in order:
        if isinstance(node, AccumulateGrad):
            listed.add(node.variable, "leaf", node)
    for node in order:
        if node in names.output_of:
            listed.add(names.output_of[node][1], "intermediate", node)
    for _, t in names.constants:
        listed.add(t, "constant", None)
    return listed


def _labels(order, names) -> dict:
    """``{node: label}``: the node name, told apart from same-named nodes by the name of its
    tensor, else by its place among them from the root (``MulBackward #2``)."""
    counts = {}
    for node in order:
        counts[node.name()] = counts.get(node.name(), 0) + 1
    seen, labels = {}, {}
    for node in order:
        base = node.name()
        if counts[base] == 1:
            labels[node] = base
            continue
        seen[base] = seen.get(base, 0) + 1
        name = names.of_node(node)
        labels[node] = f"{base}({name})" if name is not None else f"{base} #{seen[base]}"
    return labels


def _input_entries(node, nid, ids, edges) -> list:
    """The node's inputs; appends its non-null edges to ``edges``."""
    inputs = []
    for nr, ni in enumerate(node.inputs):
        target = ids.get(ni.edge) if ni.edge is not None else None
        eid = None
        shape = [int(s) for s in ni.shape]
        if target is not None:
            eid = f"e{len(edges)}"
            edges.append({"id": eid, "from": nid, "to": target, "input_nr": nr, "shape": shape, "dtype": ni.dtype.name})
        inputs.append({"input_nr": nr, "shape": shape, "dtype": ni.dtype.name, "node": target, "edge": eid})
    return inputs


def stale_message(version, current) -> str | None:
    if version == current:
        return None
    return f"modified in place after it was saved: version {current}, saved at version {version}"


def _saved_value(s, max_values):
    """The saved tensor's values as they are now (a stale one shows what it was changed to);
    ``None`` when a ``saved_tensors_hooks`` pack hook holds it as something else."""
    held = s._data if s._data is not None else s._packed
    return tensor_data(held, max_values) if isinstance(held, Tensor) else None


def _saved_entries(node, storage_owner, max_values) -> list:
    saved = []
    for name, s in node.saved_tensor_records():
        storage = getattr(s, "_storage", None)
        saved.append({
            "name": name,
            "shape": [int(d) for d in s.shape],
            "dtype": s.dtype.name,
            "bytes": s.nbytes,
            "version": s.version,
            "current_version": s.current_version,
            "stale": s.version != s.current_version,
            "stale_message": stale_message(s.version, s.current_version),
            "tensor": storage_owner.get(id(storage)),
            "value": _saved_value(s, max_values),
        })
    return saved


def _outputs(order, tensors, root_nodes) -> dict:
    """``{node: {"shape", "dtype"}}``: what each node's forward produced, read from a root
    tensor or from the input a consumer recorded for it (a kael node has one output)."""
    out = {}
    for t, node in zip(tensors, root_nodes):
        if t is not None and node is not None:
            out.setdefault(node, {"shape": [int(s) for s in t.shape], "dtype": t.dtype.name})
    for node in order:
        for ni in node.inputs:
            if ni.edge is not None and ni.edge not in out:
                out[ni.edge] = {"shape": [int(s) for s in ni.shape], "dtype": ni.dtype.name}
    return out


def _node_entry(node, nid, label, listed, edges, module_id, max_values, output, recorded) -> dict:
    kind = "accumulate" if isinstance(node, AccumulateGrad) else "function"
    return {
        "id": nid,
        "kind": kind,
        "name": node.name(),
        "label": label,
        "doc": _first_doc_line(node),
        "output": output,
        "recorded": recorded(node),
        "tensor": listed.of_node.get(node),
        "inputs": _input_entries(node, nid, listed.ids, edges),
        "saved": _saved_entries(node, listed.storage_owner, max_values) if kind == "function" else [],
        "released": bool(node.released),
        "hooks": _hooks(node, kind),
        "module": module_id,
    }


def _totals(nodes, edges, tensors) -> dict:
    accumulate = sum(1 for n in nodes if n["kind"] == "accumulate")
    saved = [s for n in nodes for s in n["saved"]]
    return {
        "nodes": len(nodes),
        "function_nodes": len(nodes) - accumulate,
        "accumulate_nodes": accumulate,
        "edges": len(edges),
        "null_inputs": sum(1 for n in nodes for i in n["inputs"] if i["node"] is None),
        "tensors": len(tensors),
        "saved_tensors": len(saved),
        "saved_bytes": sum(s["bytes"] for s in saved),
    }


class Built:
    """What ``build`` returns: the graph dict, ``{node: id}``, and the listed tensors (in the
    order of ``data["tensors"]``) so a trace can refresh their gradients after its pass."""

    __slots__ = ("data", "ids", "tensors")

    def __init__(self, data, ids, tensors):
        self.data, self.ids, self.tensors = data, ids, tensors


def build(tensors, root_nodes, params=None, max_values=MAX_VALUES, recorded=None) -> Built:
    """The graph of the roots; ``tensors[i]`` is the tensor of ``root_nodes[i]``, or ``None``
    when only the node is known. ``recorded(node)`` says where a forward recording saw the
    node made (by default the active ``kael.viz.forward`` recording's marks)."""
    recorded = recorded or recorded_at
    order = walk(root_nodes)
    ids = {node: f"n{i}" for i, node in enumerate(order)}
    names = _Names(params, ids)
    listed = _list_tensors(tensors, root_nodes, order, ids, names, max_values)
    labels = _labels(order, names)
    module_ids, modules = module_entries(order, names)
    outputs = _outputs(order, tensors, root_nodes)
    edges = []
    nodes = [
        _node_entry(node, ids[node], labels[node], listed, edges, module_ids.get(node), max_values,
                    outputs.get(node), recorded)
        for node in order
    ]
    data = {
        "version": SCHEMA_VERSION,
        "kind": "graph",
        "roots": [ids[n] if n is not None else None for n in root_nodes],
        "nodes": nodes,
        "edges": edges,
        "tensors": listed.entries,
        "modules": modules,
        "totals": _totals(nodes, edges, listed.entries),
    }
    return Built(data, ids, listed.objects)


def graph(root, params=None, max_values=MAX_VALUES) -> dict:
    """The backward graph reachable from ``root`` (a tensor, a node, or a list of them) as
    JSON-able data; ``params`` names tensors (``dict(x=x, w=w)``), as torchviz's ``make_dot``.

    >>> g = graph(loss, params=dict(x=x))
    >>> [n["label"] for n in g["nodes"]]
    ['SumBackward', 'MulBackward', 'AccumulateGrad']
    """
    tensors, nodes = as_roots(root)
    return build(tensors, nodes, params, max_values).data
