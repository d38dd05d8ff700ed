"""``kael.utils.data``: ``Dataset``, ``TensorDataset``, ``Subset``, ``random_split`` and a
single-process ``DataLoader`` that batches samples with ``default_collate``.

Shuffling draws from kael's generator (``kael.manual_seed`` makes it repeat), so the order is
not PyTorch's for the same seed."""

from .dataloader import DataLoader, default_collate
from .dataset import Dataset, IterableDataset, Subset, TensorDataset, random_split

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "random_split", "DataLoader", "default_collate"]
