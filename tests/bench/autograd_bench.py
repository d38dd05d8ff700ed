"""One lane of the autograd benchmark: prints JSON timings for the library named on the command
line ("kael", "micrograd" or "torch"). ``run.py`` runs each lane in its own process (kael's
backend is chosen at import by KAEL_BACKEND) and prints the comparison.

Workloads (the same for every library):
* mlp_step: one training step (forward, MSE-like loss, backward, zero grads) of an MLP 2-16-16-1
  with tanh on 100 points;
* chain: y = y + 1 repeated 50,000 times from a one-element leaf, then backward; forward,
  backward and total;
* op_overhead: per-op time of add / mul / exp on one-element tensors with grad recording on;
* mul_step: ``c = a * b; c.backward()`` on one-element leaves (forward and backward of one op);
* mlp_step_f64: mlp_step with float64 parameters and data.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import time


# The process's CPU time, not the wall clock: on the shared 2-core machine (load 5-25) the wall
# clock mostly measures the neighbours; every lane runs single-threaded (torch too), so CPU time
# is the library's cost.
_clock = time.process_time


def best_of(fn, repeat=5, number=1):
    """The fastest of ``repeat`` runs of ``number`` calls, in seconds per call."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = _clock()
        for _ in range(number):
            fn()
        times.append((_clock() - t0) / number)
    return min(times)


def print_ratios(title, best, width=32):
    """``best``: variant -> its times (s); the first variant is the reference. Prints each
    variant's best time and its ratio to the reference's."""
    ref = min(next(iter(best.values())))
    print(title)
    for name, times in best.items():
        t = min(times)
        print(f"  {name:{width}s} {t * 1e3:8.3f} ms  ({t / ref:.3f}x reference)")


def points(n=100, seed=0):
    rng = random.Random(seed)
    xs = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(n)]
    ys = [1.0 if x[0] * x[1] > 0 else -1.0 for x in xs]
    return xs, ys


# -- kael and torch share the tensor-shaped workloads ---------------------------------------------


def mlp_time(lib, dtype):
    """Best time of one MLP training step, with parameters and data in ``dtype``."""
    xs, ys = points()
    X = lib.tensor(xs, dtype=dtype)
    Y = lib.tensor(ys, dtype=dtype).reshape(100, 1)
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    model = model.to(dtype)
    params = list(model.parameters())

    def mlp_step():
        out = model(X)
        loss = ((out - Y) ** 2).mean()
        loss.backward()
        for p in params:
            p.grad = None

    mlp_step()
    return best_of(mlp_step, repeat=40, number=5)


def tensor_lane(lib, name):
    if name == "torch":
        lib.set_num_threads(1)
    mlp = mlp_time(lib, lib.float32)
    mlp64 = mlp_time(lib, lib.float64)

    def chain():
        x = lib.tensor([1.0], requires_grad=True)
        t0 = _clock()
        y = x
        for _ in range(50_000):
            y = y + 1
        t1 = _clock()
        y.sum().backward()
        t2 = _clock()
        del y
        t3 = _clock()
        return t1 - t0, t2 - t1, t3 - t2

    runs = [chain() for _ in range(3)]
    fwd, bwd, free = min(r[0] for r in runs), min(r[1] for r in runs), min(r[2] for r in runs)

    a = lib.tensor([1.5], requires_grad=True)
    b = lib.tensor([0.5], requires_grad=True)
    n = 2_000  # many short batches: the fastest is the one no neighbour interrupted
    ops = {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "exp": lambda: a.exp(),
    }
    overhead = {}
    for op, fn in ops.items():
        def many(fn=fn):
            for _ in range(n):
                fn()
        overhead[op] = best_of(many, repeat=40) / n

    def mul_steps():
        for _ in range(n // 4):
            c = a * b
            c.backward()

    mul_step = best_of(mul_steps, repeat=40) / (n // 4)
    return {"mlp_step": mlp, "mlp_step_f64": mlp64, "mul_step": mul_step, "chain_forward": fwd, "chain_backward": bwd, "chain_free": free,
            "chain_total": fwd + bwd + free, "op_overhead": overhead}


def micrograd_lane():
    from micrograd.engine import Value
    from micrograd.nn import MLP

    xs, ys = points()
    random.seed(0)
    model = MLP(2, [16, 16, 1])

    def mlp_step():
        # micrograd's MLP uses ReLU on hidden layers; the work per step (nodes built and
        # backpropagated) matches kael's 2-16-16-1 step.
        inputs = [[Value(v) for v in x] for x in xs]
        outs = [model(x) for x in inputs]
        loss = sum(((o - y) ** 2 for o, y in zip(outs, ys)), Value(0.0)) * (1.0 / len(ys))
        loss.backward()
        model.zero_grad()

    mlp_step()
    return {"mlp_step": best_of(mlp_step, repeat=3, number=1)}


def main():
    name = sys.argv[1]
    if name == "kael":
        import kael

        result = tensor_lane(kael, "kael")
        result["backend"] = kael.backend_name()
    elif name == "torch":
        import torch

        result = tensor_lane(torch, "torch")
        result["version"] = torch.__version__
    elif name == "micrograd":
        result = micrograd_lane()
    else:
        raise SystemExit(f"unknown lane {name!r}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
