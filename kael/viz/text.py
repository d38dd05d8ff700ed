"""Text renderings of viz data: the graph as an indented tree (as the notebook's ``walk`` prints
it) and a trace as ADR 0005's worked-example table. Both read only the JSON-able dicts."""

from __future__ import annotations

__all__ = ["format_values", "graph_text", "memory_text", "trace_table", "trace_text", "to_text"]

_SHOWN = 8  # values shown in full up to this many elements; beyond, the first few and "..."


def _num(v) -> str:
    if isinstance(v, str):  # "NaN", "Infinity", "-Infinity"
        return {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(v, v)
    if isinstance(v, bool) or isinstance(v, int):
        return str(v)
    return f"{v:.4g}"


def _nested(values, shape) -> str:
    # The depth is the tensor's ndim.
    if not shape:
        return _num(values[0])
    if len(shape) == 1:
        return "[" + ", ".join(_num(v) for v in values) + "]"
    step = len(values) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def _fmt_shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def format_values(data) -> str:
    """A tensor-data dict rounded for display: ``1``, ``[3, 3]``, ``shape [32, 4]: 1, 1, 1, ...``."""
    if data is None:
        return "-"
    values, shape = data["values"], data["shape"]
    if data["numel"] <= _SHOWN and not data["truncated"]:
        return _nested(values, shape)
    head = ", ".join(_num(v) for v in values[:3])
    return f"shape {_fmt_shape(shape)}: {head}, ..."


# -- graph as a tree -----------------------------------------------------------------------


def _count(n, noun) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _tensor_text(t) -> str:
    name = t["name"] + " " if t["name"] else ""
    return f"{name}{_fmt_shape(t['shape'])} {t['dtype']}"


def _node_detail(node, tensors) -> str:
    parts = []
    tensor = tensors.get(node["tensor"]) if node["tensor"] else None
    if node["kind"] == "accumulate":
        if tensor is not None:
            parts.append("leaf " + _tensor_text(tensor))
            if tensor["grad"] is not None:
                parts.append("grad " + format_values(tensor["grad"]))
    elif tensor is not None:
        parts.append(("output " if tensor["role"] == "root" else "-> ") + _tensor_text(tensor))
    if node["saved"]:
        saved = []
        for s in node["saved"]:
            text = f"{s['name']} {_fmt_shape(s['shape'])}"
            if s["stale"]:
                text += f" (stale: version {s['version']}, now {s['current_version']})"
            saved.append(text)
        parts.append("saved " + ", ".join(saved))
    if node["released"]:
        parts.append("released")
    hooks = node["hooks"]
    n = hooks["pre"] + hooks["post"] + hooks["tensor"]
    if n:
        parts.append(f"{n} hook" + ("s" if n > 1 else ""))
    return "  ".join(parts)


def graph_text(data, max_lines=200) -> str:
    """The graph as an indented tree from each root, inputs in order; a node reached again is
    shown once more as ``(above)``, a null edge (a constant, or an input that needs no gradient)
    as ``None``."""
    nodes = {n["id"]: n for n in data["nodes"]}
    tensors = {t["id"]: t for t in data["tensors"]}
    lines, shown = [], set()
    stack = [(root, 0, None) for root in reversed(data["roots"])]
    truncated = False
    while stack:
        if len(lines) >= max_lines:
            truncated = True
            break
        nid, depth, null_input = stack.pop()
        pad = "  " * depth
        if nid is None:
            if null_input is None:
                lines.append(pad + "None  (the root does not require grad)")
            else:
                lines.append(f"{pad}None  {_fmt_shape(null_input['shape'])} {null_input['dtype']}, no gradient")
            continue
        node = nodes[nid]
        if nid in shown:
            lines.append(f"{pad}{node['label']} (above)")
            continue
        shown.add(nid)
        detail = _node_detail(node, tensors)
        lines.append(pad + node["label"] + ("  " + detail if detail else ""))
        for inp in reversed(node["inputs"]):
            stack.append((inp["node"], depth + 1, inp))
    if truncated:
        lines.append(f"... ({data['totals']['nodes']} nodes in all)")
    totals = data["totals"]
    lines.append(
        f"{_count(totals['nodes'], 'node')}, {_count(totals['saved_tensors'], 'saved tensor')}, "
        f"{_count(totals['saved_bytes'], 'byte')} saved"
    )
    return "\n".join(lines)


# -- trace as a table ----------------------------------------------------------------------


def _send_text(send, labels) -> str:
    target = labels[send["to"]]
    count = f"count {send['count_before']} -> {send['count_after']}"
    if send["grad"] is None:
        return f"nothing to {target}, {count}"
    grad = format_values(send["grad"])
    if send["added"]:
        return f"{grad} added to the buffer of {target}: {format_values(send['buffer'])}, {count}"
    if send["ready"]:
        return f"{grad} to {target}"
    return f"{grad} buffered for {target}, {count}"


def _row(event, labels, tensors, nodes, seeded) -> tuple:
    node = event["node"]
    label = labels[node] if node is not None else "-"
    kind = event["kind"]
    incoming = format_values(event["grad"])
    if kind == "error":
        return label, incoming, f"error: {event['message']}"
    if kind == "skip":
        reason = "no gradient reached it" if event["reason"] == "no gradient" else "not needed for the inputs"
        parts = [f"skipped ({reason})"] + [_send_text(s, labels) for s in event["sends"]]
        return label, "-", "; ".join(parts)
    if node in seeded:
        incoming += f" (seed, shape {_fmt_shape(event['grad']['shape'])})"
    for hook in event["hooks"]:
        if hook["kind"] == "pre" and hook["grads"] and hook["grads"][0] != event["grad"]:
            incoming += f" -> {format_values(hook['grads'][0])} (pre-hook)"
    parts = []
    if event["captured"] is not None:
        which = ", ".join(str(i) for i in event["captured"]["inputs"])
        parts.append(f"returned as the gradient of inputs[{which}]")
    if event["accumulated"] is not None:
        tensor = tensors.get(nodes[node]["tensor"])
        name = tensor["name"] if tensor is not None and tensor["name"] else "leaf"
        parts.append(f"{name}.grad = {format_values(event['accumulated'])}")
    parts.extend(_send_text(s, labels) for s in event["sends"])
    return label, incoming, "; ".join(parts) if parts else "-"


def _columns(rows) -> str:
    widths = [max(len(r[i]) for r in rows) + 2 for i in range(len(rows[0]) - 1)]
    return "\n".join(
        ("".join(cell.ljust(w) for cell, w in zip(r, widths)) + r[-1]).rstrip() for r in rows
    )


def _pass_table(trace, index) -> str:
    graph = trace["passes"][index]["graph"]
    labels = {n["id"]: n["label"] for n in graph["nodes"]}
    nodes = {n["id"]: n for n in graph["nodes"]}
    tensors = {t["id"]: t for t in graph["tensors"]}
    events = [e for e in trace["steps"] if e["pass"] == index]
    seeded = set()
    rows = [("step", "node", "incoming gradient", "result")]
    for event in events:
        if event["kind"] == "start":
            seeded = {s["node"] for s in event["seeds"]}
            continue
        rows.append((str(event["step"]),) + _row(event, labels, tensors, nodes, seeded))
        seeded = seeded - {event["node"]}
    return _columns(rows)


def trace_table(trace, pass_index=None) -> str:
    """ADR 0005's table (step, node, incoming gradient, result) for one pass, or for every pass
    under a ``pass N`` heading when there are several."""
    passes = trace["passes"]
    if not passes:
        text = "(no backward pass was traced)"
        if trace["error"] is not None:
            text += f"\nerror: {trace['error']['message']}"
        return text
    if pass_index is not None:
        return _pass_table(trace, pass_index)
    if len(passes) == 1:
        return _pass_table(trace, 0)
    return "\n\n".join(f"pass {p['index'] + 1}\n{_pass_table(trace, p['index'])}" for p in passes)


def counts_text(trace, index) -> str:
    """``count_dependencies: AddBackward 1, ...`` for the nodes the pass waits on (count > 0)."""
    graph = trace["passes"][index]["graph"]
    labels = {n["id"]: n["label"] for n in graph["nodes"]}
    for event in trace["steps"]:
        if event["pass"] == index and event["kind"] == "start":
            counts = [f"{labels[nid]} {c}" for nid, c in event["counts"].items() if c]
            return "count_dependencies: " + (", ".join(counts) if counts else "nothing to wait for")
    return ""


def trace_text(trace) -> str:
    """What ``show(tr)`` prints: per pass the dependency counts, then the table."""
    passes = trace["passes"]
    if not passes:
        return trace_table(trace)
    blocks = []
    for p in passes:
        head = f"pass {p['index'] + 1}\n" if len(passes) > 1 else ""
        blocks.append(head + counts_text(trace, p["index"]) + "\n" + _pass_table(trace, p["index"]))
    return "\n\n".join(blocks)


def to_text(data) -> str:
    """The text ``show`` prints for a graph or trace dict."""
    if data.get("kind") == "trace":
        return trace_text(data)
    if data.get("kind") == "memory":
        return memory_text(data)
    if data.get("kind") == "forward":
        return forward_text(data)
    return graph_text(data)


def forward_text(data) -> str:
    """A forward recording: one line per step, the line number, its new nodes, saved bytes."""
    lines = []
    for step in data["steps"]:
        nodes = ", ".join(n["name"] for n in step["nodes"]) or "-"
        names = ", ".join(f"{v['name']} {_fmt_shape(v['shape'])}" for v in step["locals"])
        lines.append(f"{step['step']:>4}  line {step['line']:<4} new: {nodes}; held {step['held_bytes']} bytes; {names}")
    if data["truncated"]:
        cap = f"{data['max_nodes']} nodes" if data.get("cut_by") == "nodes" else f"{data['max_steps']} steps"
        lines.append(f"(cut after {cap}, at line {data['stopped_at']})")
    return "\n".join(lines)


def memory_text(data) -> str:
    """A memory log: the forward's saves (the notebook's count), then the peak and each event."""
    totals = data["totals"]
    title = f"{data['label']}: " if data["label"] else ""
    lines = [
        f"{title}forward saved {_count(totals['forward_tensors'], 'tensor')}, "
        f"{totals['forward_bytes']} bytes; peak held {totals['peak_bytes']} bytes"
    ]
    for e in data["events"]:
        what = f"{e['node']}.{e['name']} {_fmt_shape(e['shape'])}" if e["kind"] == "save" else e["id"]
        lines.append(f"  {e['kind']:4} {e['phase']:8} {what}  {e['bytes']} B -> held {e['held_bytes']} B")
    return "\n".join(lines)
