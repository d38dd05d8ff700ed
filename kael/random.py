"""kael's own seeded generator: the same seed gives the same numbers on both backends, in
CPython and in Pyodide.

It draws from the standard library's Mersenne Twister (``random.Random``), never from numpy.
Normal samples use the Box-Muller transform on pairs of uniforms, so they depend only on the
uniform stream and ``math``'s log, sqrt, cos and sin.
"""

from __future__ import annotations

import math
import random as _random

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"]

_DEFAULT_SEED = 67280421310721  # PyTorch's default seed, so a fresh process is reproducible too


class Generator:
    """A source of pseudo-random numbers with its own state."""

    def __init__(self, seed: int = _DEFAULT_SEED):
        self._rng = _random.Random()
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> "Generator":
        seed = int(seed)
        self._seed = seed
        self._rng.seed(seed, version=2)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        return self._rng.getstate()

    def set_state(self, state) -> None:
        self._rng.setstate(state)

    def uniform(self, n: int, low: float = 0.0, high: float = 1.0) -> list:
        r = self._rng.random
        if low == 0.0 and high == 1.0:
            return [r() for _ in range(n)]
        span = high - low
        return [low + span * r() for _ in range(n)]

    def normal(self, n: int, mean: float = 0.0, std: float = 1.0) -> list:
        r = self._rng.random
        out = []
        two_pi = 2.0 * math.pi
        while len(out) < n:
            u1 = 1.0 - r()  # in (0, 1], so log is finite
            u2 = r()
            radius = math.sqrt(-2.0 * math.log(u1))
            out.append(radius * math.cos(two_pi * u2))
            out.append(radius * math.sin(two_pi * u2))
        del out[n:]
        if mean != 0.0 or std != 1.0:
            out = [mean + std * z for z in out]
        return out

    def integers(self, n: int, low: int, high: int) -> list:
        if high <= low:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        rr = self._rng.randrange
        return [rr(low, high) for _ in range(n)]

    def permutation(self, n: int) -> list:
        out = list(range(n))
        self._rng.shuffle(out)
        return out


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator: ``rand``, ``randn``, ``randint`` and ``nn.init`` repeat."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    s = _random.SystemRandom().randrange(2**63)
    default_generator.manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)
