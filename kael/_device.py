"""``kael.device`` (this module is ``kael._device``): where a tensor lives. kael has one device, the CPU.

PyTorch code names devices (``torch.device("cpu")``, ``x.to(device)``, ``zeros(2, device=d)``,
``"cuda" if torch.cuda.is_available() else "cpu"``); kael accepts every way of naming the CPU
and refuses any other device as a CPU-only PyTorch build does.
"""

from __future__ import annotations

__all__ = ["device", "as_device", "CPU"]

_KNOWN = ("cpu", "cuda", "mps", "xpu", "meta", "hip", "xla", "mtia", "privateuseone")


class device:
    """A device name: ``device("cpu")``, ``device("cuda", 0)``, ``device("cuda:0")``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(f"Device type at start of device string: {type} is not supported on kael: it runs on the CPU")
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({_type_name(type)})")
        name, _, number = type.partition(":")
        if name not in _KNOWN:
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                f"xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}"
            )
        if number:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        self.type, self.index = name, index

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):  # a string is not a device: device("cpu") == "cpu" is False, as in PyTorch
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


def _type_name(value) -> str:
    return type(value).__name__


CPU = device("cpu")


def as_device(value) -> device:
    """``value`` (a ``device``, a string or ``None``) as the CPU device; any other device is
    refused as a CPU-only PyTorch build refuses it."""
    if value is None:
        return CPU
    d = value if isinstance(value, device) else device(value)
    if d.type == "cpu":
        return CPU
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled (kael runs on the CPU only)")
    raise RuntimeError(f"device '{d}' is not available: kael runs on the CPU only")


def is_device_like(value) -> bool:
    """True for what ``Tensor.to`` reads as a device: a ``device`` or a device string."""
    if isinstance(value, device):
        return True
    return isinstance(value, str) and value.partition(":")[0] in _KNOWN
