"""What ``kael.viz.memory`` costs per saved tensor, and what finding the saving node costs: a
forward of 200 ``(y * 1.01).tanh()`` steps (400 saves) without hooks (reference), inside a
memory log as it is (kael notes the saver for the pack hook: ``saved.saving_node()``), and
inside a memory log that finds the saver as it used to, by reading the caller frames' locals.
Rounds alternate the three so that machine load hits them alike; prints the best time of each
and the ratios. Figures only.

Usage: ``KAEL_BACKEND=numpy python tests/bench/viz_memory.py`` (and ``KAEL_BACKEND=python``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import kael  # noqa: E402
from autograd_bench import best_of, print_ratios  # noqa: E402
from kael.autograd.node import Node  # noqa: E402
import kael.viz.memory  # noqa: E402

memory_mod = sys.modules["kael.viz.memory"]


def saver_from_frames():
    """The old way: the pack hook's caller frames, searched for a local named ``node``."""
    frame = sys._getframe(2)
    for _ in range(3):
        if frame is None:
            return None
        node = frame.f_locals.get("node")
        if isinstance(node, Node):
            return node
        frame = frame.f_back
    return None


def main(rounds=7):
    x = kael.randn(8, 8, requires_grad=True)

    def forward():
        y = x
        for _ in range(200):
            y = (y * 1.01).tanh()
        return y

    def logged():
        with memory_mod.memory():
            forward()

    kept = memory_mod.saving_node
    best = {"no hooks (reference)": [], "memory log, saver noted": [], "memory log, saver from frames": []}
    for _ in range(rounds):
        best["no hooks (reference)"].append(best_of(forward, repeat=3, number=3))
        memory_mod.saving_node = kept
        best["memory log, saver noted"].append(best_of(logged, repeat=3, number=3))
        memory_mod.saving_node = saver_from_frames
        best["memory log, saver from frames"].append(best_of(logged, repeat=3, number=3))
    memory_mod.saving_node = kept
    print_ratios(f"400-save forward, backend {kael.backend_name()}, best of {rounds} alternating rounds", best)


if __name__ == "__main__":
    main()
