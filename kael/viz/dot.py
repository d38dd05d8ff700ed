"""The backward graph as Graphviz DOT text, drawn from the same data as ``kael.viz.graph``.

Arrows point from a node to the nodes of its inputs, as in ADR 0005's drawing, so the root is
at the top. Function nodes are grey boxes, AccumulateGrad nodes light blue; a root tensor is a
green ellipse above its node, a leaf tensor a light-blue ellipse below its AccumulateGrad, and a
null edge (a constant) a dotted arrow to a small "None" point.
"""

from __future__ import annotations

__all__ = ["dot_text"]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def dot_text(data) -> str:
    """DOT text for a graph dict."""
    lines = [
        "digraph kael_autograd {",
        "  graph [rankdir=TB];",
        '  node [shape=box, style=filled, fontname="monospace", fontsize=10];',
        '  edge [fontname="monospace", fontsize=9];',
    ]
    for node in data["nodes"]:
        label = node["label"]
        for s in node["saved"]:
            label += f"\nsaved {s['name']} {_shape(s['shape'])}" + (" (stale)" if s["stale"] else "")
        if node["released"]:
            label += "\n(released)"
        color = "lightblue" if node["kind"] == "accumulate" else "lightgrey"
        lines.append(f"  {node['id']} [label={_quote(label)}, fillcolor={color}];")
    for edge in data["edges"]:
        lines.append(f"  {edge['from']} -> {edge['to']} [label={_quote(str(edge['input_nr']))}];")
    for node in data["nodes"]:
        for inp in node["inputs"]:
            if inp["node"] is None:
                cid = f"{node['id']}_in{inp['input_nr']}"
                text = f"None\n{_shape(inp['shape'])} {inp['dtype']}"
                lines.append(f"  {cid} [label={_quote(text)}, shape=plaintext, style=\"\", fontsize=8];")
                lines.append(f"  {node['id']} -> {cid} [style=dotted, label={_quote(str(inp['input_nr']))}];")
    for t in data["tensors"]:
        text = (t["name"] + "\n" if t["name"] else "") + f"{_shape(t['shape'])} {t['dtype']}"
        color = {"root": "darkolivegreen1", "leaf": "lightblue"}.get(t["role"], "orange")
        lines.append(f"  {t['id']} [label={_quote(text)}, shape=ellipse, fillcolor={color}];")
        if t["node"] is None:
            continue
        if t["role"] == "leaf":
            lines.append(f"  {t['node']} -> {t['id']} [style=dashed, arrowhead=none];")
        else:
            lines.append(f"  {t['id']} -> {t['node']} [style=dashed];")
    lines.append("}")
    return "\n".join(lines) + "\n"
