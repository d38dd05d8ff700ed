"""Datasets: anything with ``__getitem__`` and ``__len__``; ``TensorDataset`` zips tensors along
their first dim; ``random_split`` cuts a dataset into random ``Subset``s."""

from __future__ import annotations

import math

from ...creation import randperm
from ...tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "random_split"]


class Dataset:
    """Subclass and write ``__getitem__(i)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other):
        return _Concat([self, other])


class IterableDataset(Dataset):
    """Subclass and write ``__iter__``; a ``DataLoader`` batches what it yields."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``."""

    def __init__(self, *tensors):
        if any(not isinstance(t, Tensor) for t in tensors):
            raise TypeError("TensorDataset takes tensors")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


class _Concat(Dataset):
    def __init__(self, datasets):
        self.datasets = list(datasets)

    def __len__(self):
        return sum(len(d) for d in self.datasets)

    def __getitem__(self, index):
        if index < 0:
            index += len(self)
        for d in self.datasets:
            if index < len(d):
                return d[index]
            index -= len(d)
        raise IndexError("index out of range")


def _lengths(n: int, lengths) -> list:
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1.0):
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):  # the remainder, one each, round robin
            counts[i % len(counts)] += 1
        return counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    return [int(x) for x in lengths]


def random_split(dataset, lengths, generator=None) -> list:
    """``Subset``s of the given lengths (or fractions summing to 1) over a random permutation."""
    order = randperm(len(dataset), generator=generator).tolist()
    out, start = [], 0
    for k in _lengths(len(dataset), lengths):
        out.append(Subset(dataset, order[start:start + k]))
        start += k
    return out
