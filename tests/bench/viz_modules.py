"""What ``kael.viz.record_modules`` costs: the MLP 2-16-16-1 training step of ``run.py`` with
``Module.__call__`` as it was before the hook point (reference), with the hook point and
recording off (the default), and with recording on. Rounds alternate the three so that machine
load hits them alike; prints the best time of each and the ratios. Figures only.

Usage: ``KAEL_BACKEND=numpy python tests/bench/viz_modules.py`` (and ``KAEL_BACKEND=python``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import kael  # noqa: E402
from autograd_bench import best_of, points, print_ratios  # noqa: E402
from kael.nn import module as module_mod  # noqa: E402
from kael.viz.modules import record_modules  # noqa: E402

nn = kael.nn


def plain_call(self, *args, **kwargs):
    return self.forward(*args, **kwargs)


def main(rounds=7):
    xs, ys = points()
    X, Y = kael.tensor(xs), kael.tensor(ys).reshape(100, 1)
    kael.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    params = list(model.parameters())

    def step():
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        for p in params:
            p.grad = None

    hooked_call = module_mod.Module.__call__
    best = {"reference (no hook point)": [], "hook point, recording off": [], "recording on": []}
    for _ in range(rounds):
        module_mod.Module.__call__ = plain_call
        step()
        best["reference (no hook point)"].append(best_of(step, repeat=3, number=10))
        module_mod.Module.__call__ = hooked_call
        step()
        best["hook point, recording off"].append(best_of(step, repeat=3, number=10))
        with record_modules():
            step()
            best["recording on"].append(best_of(step, repeat=3, number=10))
    print_ratios(f"MLP 2-16-16-1 step, backend {kael.backend_name()}, best of {rounds} alternating rounds",
                 best, width=28)


if __name__ == "__main__":
    main()
