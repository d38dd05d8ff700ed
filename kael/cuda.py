"""``kael.cuda``: kael has no GPU, so this answers as PyTorch's CPU-only build does
(``is_available()`` is False), which lets device-agnostic code pick ``"cpu"``."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "empty_cache", "is_initialized"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Ignored, as PyTorch ignores it without CUDA."""


def manual_seed_all(seed: int) -> None:
    """Ignored, as PyTorch ignores it without CUDA."""


def empty_cache() -> None:
    """Nothing is cached: there is no GPU memory."""
