"""``DataLoader``: batches of samples, in order or shuffled, put together by ``collate_fn``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...creation import randperm, tensor
from ...ops import stack
from ...tensor import Tensor
from .dataset import IterableDataset

__all__ = ["DataLoader", "default_collate"]


def default_collate(batch):
    """Stack tensors along a new first dim; numbers become a tensor; tuples, lists and dicts are
    collated field by field; strings stay a list."""
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch), 0)
    if isinstance(first, (bool, int, float)):
        return tensor(list(batch))
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, Mapping):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, Sequence):
        if any(len(b) != len(first) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(list(f)) for f in zip(*batch)]
        return tuple(fields) if isinstance(first, tuple) else fields
    raise TypeError(f"default_collate: batch must contain tensors, numbers, dicts or lists; found {type(first).__name__}")


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` (the last may be smaller unless
    ``drop_last``), shuffled each epoch when ``shuffle``. One process; ``num_workers`` must be 0."""

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None, generator=None,
                 num_workers=0, **ignored):
        if num_workers:
            raise ValueError("kael's DataLoader loads in the calling process: num_workers must be 0")
        if batch_size is not None and batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if shuffle and isinstance(dataset, IterableDataset):
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.collate_fn = collate_fn or default_collate
        self.generator = generator

    def _order(self):
        n = len(self.dataset)
        return randperm(n, generator=self.generator).tolist() if self.shuffle else range(n)

    def _batches(self, samples):
        if self.batch_size is None:
            yield from samples
            return
        batch = []
        for s in samples:
            batch.append(s)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            return self._batches(iter(self.dataset))
        return self._batches(self.dataset[i] for i in self._order())

    def __len__(self):
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
