"""Two moons: make a seeded toy data set and train a small classifier on it with kael.nn and
kael.optim, the way you would in PyTorch.

    kael.manual_seed(s); kael.rand(n); kael.randn(n, 2); kael.randint(0, 2, (n,))
    kael.nn.Sequential, kael.nn.Linear, kael.nn.Tanh / kael.nn.ReLU
    kael.nn.functional.cross_entropy(logits, labels)
    kael.optim.Adam(model.parameters(), lr=...)
"""

import math

import kael
import kael.nn as nn


def make_moons(n, noise=0.1, seed=0):
    """``(points, labels)``: ``n`` points (float32 ``[n, 2]``) on two interleaved half circles,
    and their class (int64 ``[n]``). Draw, after ``kael.manual_seed(seed)``, in this order:
    ``labels = kael.randint(0, 2, (n,))``, ``t = kael.rand(n) * math.pi``, then the noise
    ``kael.randn(n, 2) * noise``. Class 0 lies at ``(cos t, sin t)``, class 1 at
    ``(1 - cos t, 0.5 - sin t)``."""
    raise NotImplementedError("implement make_moons(n, noise, seed): labels, then t, then noise")


def train(points, labels):
    """Train a small MLP on ``points`` [N, 2] and ``labels`` [N] and return it: the trained
    ``kael.nn.Module``, whose ``model(points)`` gives the logits [N, 2]. It is scored on fresh
    points: at least 95% right."""
    raise NotImplementedError("implement train(points, labels): an MLP, cross_entropy, an optimizer loop")


def predict(model, points):
    """The class (0 or 1) of each row of ``points``, the argmax of ``model(points)``: an int64
    tensor [N] (or a list of ints)."""
    raise NotImplementedError("implement predict(model, points): argmax of the logits, without recording a graph")
