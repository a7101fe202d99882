"""minigrad.utils.data: datasets, samplers and the DataLoader, with torch.utils.data's names and rules.

Loading always happens in the main process: `num_workers > 0` is accepted (so torch programs run
unchanged) and behaves as `num_workers=0`.
"""
from .dataset import Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                      BatchSampler)
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
           "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler",
           "default_collate", "default_convert", "DataLoader", "get_worker_info"]
