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


def build(tensors, root_nodes, params=None, max_values=MAX_VALUES) -> tuple:
    """``(graph dict, {node: id})`` for the roots; ``tensors[i]`` is the tensor of
    ``root_nodes[i]``, or ``None`` when only the node is known."""
    order = walk(root_nodes)
    ids = {node: f"n{i}" for i, node in enumerate(order)}
    named = named_tensors(params)
    name_of = {}  # id(tensor) -> name, first name wins
    for name, t in named:
        name_of.setdefault(id(t), name)
    output_of = {}  # grad_fn node -> (name, tensor), for named tensors with history
    for name, t in named:
        fn = t.grad_fn
        if fn is not None and fn in ids and fn not in output_of:
            output_of[fn] = (name, t)

    # Tensors: the roots, the leaves in walk order, then the named intermediates in walk order
    # (so the ids of roots and leaves do not depend on which intermediates ``params`` names).
    tensor_entries, tensor_ids = [], {}  # id(tensor) -> tensor id
    storage_owner = {}  # id(storage) -> tensor id, to tell which saved tensors alias a listed one
    node_tensor = {}  # node -> tensor id

    def add_tensor(t, role, node):
        key = id(t)
        if key in tensor_ids:
            return tensor_ids[key]
        meta = t._meta
        tid = f"t{len(tensor_entries)}"
        tensor_ids[key] = tid
        storage_owner.setdefault(id(t._storage), tid)
        tensor_entries.append({
            "id": tid,
            "role": role,
            "name": name_of.get(key),
            "shape": [int(s) for s in t.shape],
            "dtype": t.dtype.name,
            "requires_grad": t.requires_grad,
            "is_leaf": t.is_leaf,
            "retains_grad": meta is not None and meta.retains_grad,
            "node": ids.get(node) if node is not None else None,
            "version": t._storage.version,
            "value": tensor_data(t, max_values),
            "grad": _maybe_data(t.grad, max_values),
        })
        if node is not None and node in ids:
            node_tensor.setdefault(node, tid)
        return tid

    for t, node in zip(tensors, root_nodes):
        if t is not None:
            add_tensor(t, "root", node)
    for node in order:
        if isinstance(node, AccumulateGrad):
            add_tensor(node.variable, "leaf", node)
    for node in order:
        if node in output_of:
            add_tensor(output_of[node][1], "intermediate", node)

    # Labels: the node name, made distinct when several nodes share it.
    counts = {}
    for node in order:
        counts[node.name()] = counts.get(node.name(), 0) + 1

    def label(node, nid):
        base = node.name()
        if counts[base] == 1:
            return base
        if isinstance(node, AccumulateGrad):
            name = name_of.get(id(node.variable))
        else:
            name = output_of[node][0] if node in output_of else None
        return f"{base}({name})" if name is not None else f"{base}[{nid}]"

    nodes, edges = [], []
    saved_count = saved_bytes = null_inputs = 0
    for node in order:
        nid = ids[node]
        kind = "accumulate" if isinstance(node, AccumulateGrad) else "function"
        inputs = []
        for nr, ni in enumerate(node.inputs):
            target = ids.get(ni.edge) if ni.edge is not None else None
            eid = None
            if target is not None:
                eid = f"e{len(edges)}"
                edges.append({
                    "id": eid, "from": nid, "to": target, "input_nr": nr,
                    "shape": [int(s) for s in ni.shape], "dtype": ni.dtype.name,
                })
            else:
                null_inputs += 1
            inputs.append({
                "input_nr": nr, "shape": [int(s) for s in ni.shape], "dtype": ni.dtype.name,
                "node": target, "edge": eid,
            })
        saved = []
        if kind == "function":
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
                    "tensor": storage_owner.get(id(storage)),
                })
                saved_count += 1
                saved_bytes += s.nbytes
        nodes.append({
            "id": nid,
            "kind": kind,
            "name": node.name(),
            "label": label(node, nid),
            "doc": _first_doc_line(node),
            "tensor": node_tensor.get(node),
            "inputs": inputs,
            "saved": saved,
            "released": bool(node.released),
            "hooks": _hooks(node, kind),
        })

    accumulate = sum(1 for n in nodes if n["kind"] == "accumulate")
    data = {
        "version": SCHEMA_VERSION,
        "kind": "graph",
        "roots": [ids[n] if n is not None else None for n in root_nodes],
        "nodes": nodes,
        "edges": edges,
        "tensors": tensor_entries,
        "totals": {
            "nodes": len(nodes),
            "function_nodes": len(nodes) - accumulate,
            "accumulate_nodes": accumulate,
            "edges": len(edges),
            "null_inputs": null_inputs,
            "tensors": len(tensor_entries),
            "saved_tensors": saved_count,
            "saved_bytes": saved_bytes,
        },
    }
    return data, ids


def graph(root, params=None, max_values=MAX_VALUES) -> dict:
    """The backward graph reachable from ``root`` (a tensor, a node, or a list of them) as
    JSON-able data; ``params`` names tensors (``dict(x=x, w=w)``), as torchviz's ``make_dot``.

    >>> g = graph(loss, params=dict(x=x))
    >>> [n["label"] for n in g["nodes"]]
    ['SumBackward', 'MulBackward', 'AccumulateGrad']
    """
    tensors, nodes = as_roots(root)
    return build(tensors, nodes, params, max_values)[0]
