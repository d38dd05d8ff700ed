"""Activation memory over time: ``with kael.viz.memory() as mem:``.

Inside the block every tensor saved for backward goes through kael's own ``saved_tensors_hooks``
(the notebook's way of counting activation memory): a ``save`` event when the forward saves it,
a ``free`` event when the saving node lets it go (the backward pass releases each node's saved
tensors after running it, or the graph is dropped). Each event carries the bytes still held, so
the page can plot the bytes held by saved tensors as the forward builds the graph and as the
backward frees them. A checkpointed segment saves only its inputs in the forward and saves (then
frees) its recomputed activations inside the backward: those events have phase ``"backward"``.

Bytes are counted twice over, for two questions. ``bytes`` of a save is the notebook's count
(``numel * itemsize`` of the saved tensor, summed in ``forward_bytes``). ``held_bytes`` is the
memory those saves keep alive: a storage saved several times (a checkpoint's recomputation
saves its inputs again while the forward's saves of them are still held) is held once.
"""

from __future__ import annotations

import weakref

from ..autograd import engine
from ..autograd.saved import saved_tensors_hooks, saving_node

__all__ = ["memory", "MemoryLog"]

MAX_EVENTS = 20_000  # beyond this many events a log keeps counting but stops listing


class _Held:
    """What the pack hook returns: the tensor, held exactly as without hooks; when its saved
    tensor is let go, this object is too, and its finalizer records the ``free`` event."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor):
        self.tensor = tensor


class MemoryLog:
    """The save and free events of one ``with kael.viz.memory(label) as mem:`` block."""

    def __init__(self, label=None):
        self.label = label
        self.events = []
        self.held_bytes = 0
        self.held_tensors = 0
        self.peak_bytes = 0
        self.forward_tensors = 0
        self.forward_bytes = 0
        self.dropped = 0
        self._count = 0
        self._storage_count = 0  # storages labelled so far ("m0", "m1", ...)
        self._storages = {}  # id(storage) -> [label, saves holding it, bytes counted for it]
        self._per_node = weakref.WeakKeyDictionary()  # node -> saves so far (for the name)
        self._hooks = saved_tensors_hooks(self._pack, self._unpack)

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)
        return False

    # -- the hooks --------------------------------------------------------------------------------
    def _pack(self, tensor):
        node = saving_node()  # kael notes the saver for pack hooks: no frame inspection
        name = None
        if node is not None:
            k = self._per_node.get(node, 0)
            self._per_node[node] = k + 1
            names = getattr(node, "saved_names", ())
            name = names[k] if k < len(names) else str(k)
        nbytes = tensor.numel() * tensor.element_size()
        sid = f"s{self._count}"
        self._count += 1
        backward = engine._depth > 0
        if not backward:
            self.forward_tensors += 1
            self.forward_bytes += nbytes
        key = id(tensor.untyped_storage())  # alive (and so unique) while a save holds it
        storage, added = self._hold(key, nbytes)
        self._change("save", sid, nbytes, 1, added, {
            "storage": storage,
            "node": node.name() if node is not None else None,
            "name": name,
            "shape": [int(s) for s in tensor.shape],
            "dtype": tensor.dtype.name,
            "phase": "backward" if backward else "forward",
        })
        held = _Held(tensor)
        weakref.finalize(held, self._free, sid, nbytes, key)
        return held

    def _hold(self, key, nbytes):
        """One more save of the storage ``key``: its label and the bytes this adds to what is
        held (0 when the storage is already held by a save at least as large)."""
        entry = self._storages.get(key)
        if entry is None:
            entry = self._storages[key] = [f"m{self._storage_count}", 0, 0]
            self._storage_count += 1
        added = max(0, nbytes - entry[2])
        entry[1] += 1
        entry[2] += added
        return entry[0], added

    def _free(self, sid, nbytes, key):
        entry = self._storages[key]
        entry[1] -= 1
        released = 0
        if entry[1] == 0:
            released = entry[2]
            del self._storages[key]
        self._change("free", sid, nbytes, -1, -released, {"storage": entry[0]})

    @staticmethod
    def _unpack(held):
        return held.tensor

    def _change(self, kind, sid, nbytes, sign, delta, detail):
        self.held_bytes += delta
        self.held_tensors += sign
        self.peak_bytes = max(self.peak_bytes, self.held_bytes)
        if len(self.events) >= MAX_EVENTS:
            self.dropped += 1
            return
        event = {"kind": kind, "id": sid, "bytes": nbytes, "held_bytes": self.held_bytes,
                 "held_tensors": self.held_tensors}
        if kind == "free":
            detail = {**detail, "node": None, "name": None, "shape": None, "dtype": None,
                      "phase": "backward" if engine._depth > 0 else "forward"}
        event.update(detail)
        self.events.append(event)

    # -- results ----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The memory document (SCHEMA.md, ``kind: "memory"``)."""
        from .walk import SCHEMA_VERSION

        return {
            "version": SCHEMA_VERSION,
            "kind": "memory",
            "label": self.label,
            "events": list(self.events),
            "totals": {
                "forward_tensors": self.forward_tensors,
                "forward_bytes": self.forward_bytes,
                "peak_bytes": self.peak_bytes,
                "held_bytes": self.held_bytes,
                "held_tensors": self.held_tensors,
                "events": self._count * 2 - self.held_tensors,
                "dropped_events": self.dropped,
            },
        }

    def __repr__(self):
        return (f"<kael.viz.MemoryLog {self.label!r}: forward saved {self.forward_tensors} tensors, "
                f"{self.forward_bytes} bytes; peak {self.peak_bytes} bytes>")


def memory(label=None) -> MemoryLog:
    """``with kael.viz.memory("plain") as mem: out = f(x); out.sum().backward()`` then
    ``kael.viz.show(mem)``: the bytes held by saved tensors over time."""
    return MemoryLog(label)
