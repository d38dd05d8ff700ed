"""Mutant: predict takes the argmax over the batch (dim=0) instead of over the classes (dim=1):
one index per class, not one class per point."""

import math

import kael
import kael.nn as nn


def make_moons(n, noise=0.1, seed=0):
    kael.manual_seed(seed)
    labels = kael.randint(0, 2, (n,))
    t = kael.rand(n) * math.pi
    upper = labels == 0
    x = kael.where(upper, t.cos(), 1.0 - t.cos())
    y = kael.where(upper, t.sin(), 0.5 - t.sin())
    points = kael.stack([x, y], dim=1) + kael.randn(n, 2) * noise
    return points, labels


def train(points, labels):
    kael.manual_seed(1)
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    optimizer = kael.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(100):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(points), labels)
        loss.backward()
        optimizer.step()
    return model


def predict(model, points):
    with kael.no_grad():
        return model(points).argmax(dim=0)
