"""Benchmarks, each lane in its own process, printed side by side with ratios measured in the
same run. Usage: ``python tests/bench/run.py`` (``make bench``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def lane(name, **env):
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    proc = subprocess.run(
        [sys.executable, str(HERE / "autograd_bench.py"), name], capture_output=True, text=True, env=full_env
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        print(f"  {name} {env or ''}: unavailable ({tail[0]})")
        return None
    return json.loads(proc.stdout)


def ms(seconds):
    return f"{seconds * 1e3:9.3f} ms"


def us(seconds):
    return f"{seconds * 1e6:8.2f} µs"


LANES = {
    "kael-python": ("kael", {"KAEL_BACKEND": "python"}),
    "kael-numpy": ("kael", {"KAEL_BACKEND": "numpy"}),
    "micrograd": ("micrograd", {}),
    "torch": ("torch", {}),
}


def fastest(a, b):
    """Figure by figure, the faster of two rounds of one lane (nested dicts of seconds)."""
    if a is None or b is None:
        return a or b
    return {k: fastest(v, b[k]) if isinstance(v, dict) else (min(v, b[k]) if isinstance(v, float) else v)
            for k, v in a.items()}


def main():
    rounds = int(os.environ.get("KAEL_BENCH_ROUNDS", "3"))
    # Rounds interleave the lanes, and each figure is its fastest round: on a shared machine
    # a whole process can be slowed (a neighbour on its core's sibling), which no number of
    # batches inside that process escapes.
    print(f"running lanes (each in its own process, {rounds} interleaved rounds)...")
    results = dict.fromkeys(LANES)
    for _ in range(rounds):
        for key, (name, env) in LANES.items():
            if key == "micrograd" and results[key] is not None:
                continue  # seconds per round, and far from every target: one round says enough
            results[key] = fastest(results[key], lane(name, **env))
    present = {k: v for k, v in results.items() if v}

    print("\nMLP 2-16-16-1 training step on 100 points (forward + backward), best of runs")
    for k, v in present.items():
        print(f"  {k:12s} {ms(v['mlp_step'])}")
    mg, th = results["micrograd"], results["torch"]
    kp, kn = results["kael-python"], results["kael-numpy"]
    if mg and kp:
        print(f"  micrograd / kael-python = {mg['mlp_step'] / kp['mlp_step']:.1f}x  (target >= 100x)")
    if th and kn:
        print(f"  kael-numpy / torch      = {kn['mlp_step'] / th['mlp_step']:.2f}x  (target <= 2x)")

    if th and kn:
        print(f"  float64: kael-numpy {ms(kn['mlp_step_f64'])}  torch {ms(th['mlp_step_f64'])}  "
              f"kael-numpy / torch = {kn['mlp_step_f64'] / th['mlp_step_f64']:.2f}x  (target <= 1.5x)")

    print("\nc = a * b; c.backward() on one-element leaves (forward + backward of one op)")
    for k in ("kael-python", "kael-numpy", "torch"):
        v = results[k]
        if v:
            print(f"  {k:12s} {us(v['mul_step'])}")
    if th:
        for k in ("kael-python", "kael-numpy"):
            if results[k]:
                print(f"  {k} / torch = {results[k]['mul_step'] / th['mul_step']:.2f}x  (target <= 1.5x)")

    print("\n50,000-step chain y = y + 1: forward, backward, free, total")
    for k in ("kael-python", "kael-numpy", "torch"):
        v = results[k]
        if v:
            print(f"  {k:12s} fwd {ms(v['chain_forward'])}  bwd {ms(v['chain_backward'])}  "
                  f"free {ms(v['chain_free'])}  total {ms(v['chain_total'])}")
    if th:
        for k in ("kael-python", "kael-numpy"):
            if results[k]:
                r = {p: results[k][f"chain_{p}"] / th[f"chain_{p}"] for p in ("forward", "backward", "free", "total")}
                print(f"  {k} / torch: fwd {r['forward']:.2f}x  bwd {r['backward']:.2f}x  free {r['free']:.2f}x  "
                      f"total {r['total']:.2f}x  (target <= 1.5x)")

    print("\nPer-op overhead on one-element tensors (grad recording on)")
    for k in ("kael-python", "kael-numpy", "torch"):
        v = results[k]
        if v:
            cells = "  ".join(f"{op} {us(t)}" for op, t in v["op_overhead"].items())
            print(f"  {k:12s} {cells}")
    if th:
        for k in ("kael-python", "kael-numpy"):
            if results[k]:
                ratios = "  ".join(
                    f"{op} {results[k]['op_overhead'][op] / th['op_overhead'][op]:.2f}x" for op in th["op_overhead"]
                )
                print(f"  {k} / torch: {ratios}")


if __name__ == "__main__":
    main()
