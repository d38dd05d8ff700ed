"""Differential programs of modules and optimizers (issue 23): a random model (Linear,
activations, LayerNorm, Embedding in front), deterministic weights, a random loss and
optimizer (SGD with momentum/Nesterov/weight decay, Adam, AdamW, amsgrad), maybe a scheduler,
gradient clipping, a frozen parameter, a forward hook, a cast to float64, then training steps.
Each statement runs in kael and in PyTorch and both namespaces are compared after it with
``torchdiff``'s comparison (values, gradients, dtypes, requires_grad, error types); the
parameters are bound to names ``w0, w1, ...`` when the model is made, so a cast or a step that
replaced a Parameter object instead of updating it shows as a difference.

Usage: ``python tests/kael/torchdiff_nn.py N [--first-seed S] [--show K]`` prints the summary
(``torchdiff``'s kinds); ``tests/kael/test_torch_differential_nn.py`` runs a fixed sample."""

from __future__ import annotations

import argparse
import random
import sys
import warnings

from torchdiff import _classify_error, _compare, _literal, _namespace, _run, summarize

__all__ = ["generate_and_run_nn", "run_many_nn"]

ACTIVATIONS = ["lib.nn.ReLU()", "lib.nn.Tanh()", "lib.nn.Sigmoid()", "lib.nn.GELU()", "lib.nn.SiLU()",
               "lib.nn.LeakyReLU(0.1)", "lib.nn.Identity()"]
OPTIMIZERS = [
    "lib.optim.SGD({params}, lr={lr})",
    "lib.optim.SGD({params}, lr={lr}, momentum=0.9)",
    "lib.optim.SGD({params}, lr={lr}, momentum=0.8, nesterov=True, weight_decay=0.01)",
    "lib.optim.SGD({params}, lr={lr}, momentum=0.5, dampening=0.3)",
    "lib.optim.Adam({params}, lr={lr})",
    "lib.optim.Adam({params}, lr={lr}, betas=(0.8, 0.9), weight_decay=0.1)",
    "lib.optim.Adam({params}, lr={lr}, amsgrad=True)",
    "lib.optim.AdamW({params}, lr={lr})",
    "lib.optim.AdamW({params}, lr={lr}, weight_decay=0.2, eps=1e-6)",
]
SCHEDULERS = [
    "lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)",
    "lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3, eta_min=0.001)",
    "lib.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.8 ** e)",
    "lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)",
    "lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.3)",
]


class _NNGen:
    """Writes one program: data, model, weights, optimizer, then training steps."""

    def __init__(self, rng):
        self.rng = rng
        self.dtype = rng.choice(["float64", "float64", "float32"])

    def tensor(self, shape, dtype=None):
        dtype = dtype or self.dtype
        values = _literal(self.rng, shape, dtype).replace("nan", "0.5").replace("inf", "1.5")
        return f"lib.tensor({values}, dtype=lib.{dtype})"

    def layers(self, d_in):
        """Module expressions and the parameter shapes each adds."""
        rng, mods, shapes, d = self.rng, [], [], d_in
        for _ in range(rng.randint(1, 3)):
            d_out = rng.randint(1, 4)
            bias = rng.random() < 0.8
            mods.append(f"lib.nn.Linear({d}, {d_out}, bias={bias})")
            shapes += [(d_out, d)] + ([(d_out,)] if bias else [])
            d = d_out
            if d >= 3 and rng.random() < 0.4:  # over 1 or 2 features its input gradient is rounding noise
                mods.append(f"lib.nn.LayerNorm({d})")
                shapes += [(d,), (d,)]
            mods.append(rng.choice(ACTIVATIONS))
        return mods, shapes, d

    def model_lines(self):
        rng = self.rng
        n, d_in = rng.randint(1, 4), rng.randint(1, 4)
        embed = rng.random() < 0.25
        mods, shapes, d_out = self.layers(d_in)
        if embed:
            vocab = rng.randint(2, 5)
            mods.insert(0, f"lib.nn.Embedding({vocab}, {d_in})")
            shapes.insert(0, (vocab, d_in))
            x = f"lib.tensor({[rng.randrange(vocab) for _ in range(n)]})"
        else:
            x = self.tensor((n, d_in))
        make_dtype = "" if self.dtype == "float32" else ".double()"
        names = [f"w{i}" for i in range(len(shapes))]
        copies = "\n".join(f"    {nm}.copy_({self.tensor(s)})" for nm, s in zip(names, shapes))
        model = (f"m = lib.nn.Sequential({', '.join(mods)}){make_dtype}\n{', '.join(names)}, = m.parameters()\n"
                 f"with lib.no_grad():\n{copies}")  # one statement: the random init is never compared
        return [f"x = {x}", model], names, n, d_out

    def loss_line(self, n, d_out):
        rng = self.rng
        kind = rng.choice(["mse", "ce", "bce", "sum"]) if d_out > 1 else rng.choice(["mse", "bce", "sum"])
        if kind == "mse":
            return f"y = {self.tensor((n, d_out))}", "F.mse_loss(m(x), y)"
        if kind == "ce":
            return f"y = lib.tensor({[rng.randrange(d_out) for _ in range(n)]})", "F.cross_entropy(m(x), y)"
        if kind == "bce":
            target = "[" + ", ".join("[" + ", ".join(rng.choice(["0.0", "1.0"]) for _ in range(d_out)) + "]" for _ in range(n)) + "]"
            return f"y = lib.tensor({target}, dtype=lib.{self.dtype})", "F.binary_cross_entropy_with_logits(m(x), y)"
        return "y = None", "(m(x) ** 2).sum()"

    def extras(self, names):
        rng, out = self.rng, []
        if rng.random() < 0.25:
            out.append(f"{rng.choice(names)}.requires_grad_(False)")
        if rng.random() < 0.2:
            out.append("h = m[0].register_forward_hook(lambda mod, args, out: out * 0.5)")
        if rng.random() < 0.15 and self.dtype == "float32":
            out.append("m = m.double()\nx = x if x.dtype == lib.int64 else x.double()\n"
                       "y = y.double() if y is not None and y.dtype != lib.int64 else y")
        return out

    def program(self, steps):
        rng = self.rng
        lines, names, n, d_out = self.model_lines()
        target, loss = self.loss_line(n, d_out)
        lines.append(target)
        lines.extend(self.extras(names))
        lr = rng.choice([0.01, 0.05, 0.1])  # larger rates make some programs diverge: chaos, not a difference
        # Adam's step does not scale with the gradient: a float32 gradient that is rounding noise
        # (1e-9 in one library, 0 in the other: a saturated activation) moves a weight by lr.
        # So Adam and AdamW train float64 models only; SGD trains both.
        choices = OPTIMIZERS if self.dtype == "float64" else [o for o in OPTIMIZERS if "SGD" in o]
        lines.append("opt = " + rng.choice(choices).format(params="m.parameters()", lr=lr))
        sched = rng.choice(SCHEDULERS) if rng.random() < 0.4 else None
        if sched:
            lines.append(f"sched = {sched}")
        clip = rng.random() < 0.3
        for _ in range(steps):
            step = ["opt.zero_grad()", f"loss = {loss}", "loss.backward()"]
            if clip:
                step.append("gn = lib.nn.utils.clip_grad_norm_(m.parameters(), 0.5)")
            step.append("opt.step()")
            if sched:
                step.append("sched.step()")
            step.append("lr = lib.tensor(opt.param_groups[0]['lr'], dtype=lib.float64)")
            lines.append("\n".join(step))
        return lines


def generate_and_run_nn(seed, kael, torch, steps=4):
    """``(kind, detail, lines)`` for program ``seed``; ``kind`` is None when both agreed."""
    rng = random.Random(seed)
    lines = _NNGen(rng).program(steps)
    kns, tns = _namespace(kael), _namespace(torch)
    where = f"<nn program {seed}>"
    done = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for line in lines:
            done.append(line)
            texc, kexc = _run(line, tns, where), _run(line, kns, where)
            diff = None
            if kexc is not None or texc is not None:
                diff = _classify_error(kexc, texc, kael.backend_name(), line, done, tns, kns)
                if diff is None:
                    return None, None, done  # both refused the same way: the program ends
            if diff is None:
                single = any(getattr(v, "dtype", None) is torch.float32 for v in tns.values())
                try:
                    diff = _compare(kns, tns, kael, torch, single)
                except Exception as exc:  # noqa: BLE001
                    diff = "broken-result", f"{type(exc).__name__}: {exc}"
            if diff is not None:
                return diff[0], diff[1], done
    return None, None, done


def run_many_nn(seeds, kael, torch, steps=4):
    out = []
    for seed in seeds:
        kind, detail, lines = generate_and_run_nn(seed, kael, torch, steps)
        if kind is not None:
            out.append((seed, kind, detail, lines))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=1)
    args = ap.parse_args(argv)
    import torch

    import kael

    torch.set_num_threads(1)
    seeds = range(args.first_seed, args.first_seed + args.n)
    diffs = run_many_nn(seeds, kael, torch)
    print(f"backend {kael.backend_name()}, seeds {seeds.start}..{seeds.stop - 1}")
    print(summarize(args.n, diffs, args.show))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
