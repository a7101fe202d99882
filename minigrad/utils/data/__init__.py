"""minigrad.utils.data: datasets, samplers and the DataLoader, with torch.utils.data's names and rules.

Loading always happens in the main process; `num_workers > 0` gives what torch's worker processes
give, emulated in turn in the main process (see dataloader.py).
"""
from .dataset import (Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, ChainDataset, StackDataset,
                      random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                      BatchSampler)
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "ChainDataset",
           "StackDataset", "random_split",
           "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler",
           "default_collate", "default_convert", "DataLoader", "get_worker_info", "DistributedSampler"]
from .distributed import DistributedSampler  # noqa: E402
