"""torch.utils.data: Dataset, TensorDataset, Subset, ConcatDataset, random_split, the samplers and
DataLoader, in one process (no worker processes).  The random draws are PyTorch 2.13's, in its
order: each iteration of a DataLoader draws its base seed from the loader's generator (the
default one if none) when the iterator is made, and a shuffling RandomSampler without a
generator draws the seed of a fresh generator at the first batch, then permutes with it
(torch.randperm), so that a seeded training loop sees PyTorch's batches and the draws after it
are PyTorch's too.

A program's callables (collate_fn, a dataset's __getitem__) are called through the sandbox's
check (gradcli.engine.callables); a batch is a Python list of at most len(dataset) items, held
to the item limit as other lists the engine makes (check_pieces)."""

import bisect
import itertools
import math
import warnings

import numpy as np

from .engine.callables import checked
from .engine.tensor import Tensor, check_pieces
from .engine.torch_classes import TorchClass, torch_repr

__all__ = ["Dataset", "TensorDataset", "ConcatDataset", "Subset", "random_split", "DataLoader",
           "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "BatchSampler", "default_collate", "default_convert", "get_worker_info"]


class _DataClass(metaclass=TorchClass):
    __repr__ = torch_repr


# ---------------------------------------------------------------------- datasets

class Dataset(_DataClass):
    """A map-style dataset: dataset[i], len(dataset); `a + b` concatenates."""

    _torch_name = "torch.utils.data.dataset.Dataset"
    # (a program's subclass defines them: lang.classes._redefined_base)
    _program_dunders = ("__getitem__", "__len__")

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Samples of tensors that share their first dimension: dataset[i] is (t[i] for each t)."""

    _torch_name = "torch.utils.data.dataset.TensorDataset"

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """The datasets one after the other."""

    _torch_name = "torch.utils.data.dataset.ConcatDataset"

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return _item(self.datasets[dataset_idx], sample_idx)


class Subset(Dataset):
    """The samples of dataset at indices."""

    _torch_name = "torch.utils.data.dataset.Subset"

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return _item(self.dataset, [self.indices[i] for i in idx])
        return _item(self.dataset, self.indices[idx])

    def __len__(self):
        return len(self.indices)


def _item(dataset, index):
    """dataset[index]: a program's __getitem__ called through the sandbox's check."""
    getitem = getattr(type(dataset), "__getitem__", None)
    if getitem is None:
        return dataset[index]  # (Python's TypeError: not subscriptable)
    return checked(getitem)(dataset, index)


def random_split(dataset, lengths, generator=None):
    """Subsets of the given lengths (or fractions of len(dataset)) of one random permutation
    (torch.randperm from generator, the default generator if none)."""
    from .ops.creation import GENERATOR
    from .ops.distributions import randperm
    generator = GENERATOR if generator is None else generator
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        check_pieces(remainder)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              f"empty dataset.", UserWarning, stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


# ---------------------------------------------------------------------- samplers

class Sampler(_DataClass):
    _torch_name = "torch.utils.data.sampler.Sampler"
    _program_dunders = ("__iter__", "__len__")

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    _torch_name = "torch.utils.data.sampler.SequentialSampler"

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_seed(generator=None):
    """`torch.empty((), dtype=torch.int64).random_(generator=...).item()`."""
    from .engine import dtypes
    from .ops.creation import empty
    return empty((), dtype=dtypes.int64).random_(generator=generator).item()


class RandomSampler(Sampler):
    """A random permutation of the indices (with replacement: random indices), drawn as
    PyTorch's RandomSampler draws them."""

    _torch_name = "torch.utils.data.sampler.RandomSampler"

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        from .ops.creation import Generator
        from .ops.creation import randint
        from .ops.distributions import randperm
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator()
            generator.manual_seed(int(_fresh_seed()))
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(n, (32,), generator=generator).tolist()
            yield from randint(n, (self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    _torch_name = "torch.utils.data.sampler.SubsetRandomSampler"

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        from .ops.distributions import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of batch_size indices of sampler (the last one shorter, unless drop_last)."""

    _torch_name = "torch.utils.data.sampler.BatchSampler"

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        size = self.batch_size
        if hasattr(self.sampler, "__len__"):  # (a batch is no longer than the sampler)
            size = min(size, len(self.sampler))
        check_pieces(size)
        while True:  # (zip(*[sampler_iter] * batch_size) with drop_last, as PyTorch's)
            batch = list(itertools.islice(sampler_iter, self.batch_size))
            if not batch or self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


# ---------------------------------------------------------------------- collation

COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                 "lists; found {}")


def default_collate(batch):
    """A batch (a list of samples) as PyTorch's default_collate makes it: tensors stacked,
    numbers as a tensor (floats in float64), strings as they are, dicts, tuples and lists
    collated element by element."""
    from .engine import dtypes
    from .ops import OPS
    elem = batch[0]
    if isinstance(elem, Tensor):
        return OPS["stack"](batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind not in "biufc":
            raise TypeError(COLLATE_ERROR.format(elem.dtype))
        return default_collate([OPS["as_tensor"](b) for b in batch])
    if isinstance(elem, np.generic):
        return OPS["as_tensor"](np.array(batch))
    if isinstance(elem, float):
        return OPS["tensor"](batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return OPS["tensor"](batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, (tuple, list)):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError(COLLATE_ERROR.format(type(elem)))


def default_convert(data):
    """A sample as the DataLoader gives it without batching: NumPy arrays as tensors."""
    from .ops import OPS
    if isinstance(data, np.ndarray) and data.dtype.kind in "biufc" or \
            isinstance(data, np.generic):
        return OPS["as_tensor"](data)
    if isinstance(data, dict):
        return {key: default_convert(value) for key, value in data.items()}
    if isinstance(data, (tuple, list)):
        return type(data)(default_convert(d) for d in data)
    return data


def get_worker_info():
    """None: the data loads in the program's own process."""
    return None


# ---------------------------------------------------------------------- DataLoader

class DataLoader(_DataClass):
    """Batches of a map-style dataset: its samples in order or shuffled (RandomSampler), in
    lists of batch_size indices (BatchSampler), each collated (default_collate)."""

    _torch_name = "torch.utils.data.dataloader.DataLoader"
    _FIXED = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
              "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if num_workers > 0:
            raise ValueError("DataLoader(num_workers > 0): worker processes are not supported "
                             "in gradcli programs")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle \
                else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        set_ = object.__setattr__
        for name, value in (("dataset", dataset), ("num_workers", num_workers),
                            ("prefetch_factor", None), ("pin_memory", pin_memory),
                            ("pin_memory_device", pin_memory_device), ("timeout", timeout),
                            ("worker_init_fn", worker_init_fn),
                            ("multiprocessing_context", multiprocessing_context),
                            ("in_order", in_order), ("batch_size", batch_size),
                            ("drop_last", drop_last), ("sampler", sampler),
                            ("batch_sampler", batch_sampler), ("generator", generator),
                            ("persistent_workers", persistent_workers)):
            set_(self, name, value)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        set_(self, "collate_fn", checked(collate_fn))

    def __setattr__(self, attr, value):
        if attr in self._FIXED:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        object.__setattr__(self, attr, value)

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


class _SingleProcessDataLoaderIter(_DataClass):
    """One pass over a DataLoader: its base seed drawn now (as PyTorch draws it, for the
    workers gradcli does not have), the sampler's draws at the first batch."""

    _torch_name = "torch.utils.data.dataloader._SingleProcessDataLoaderIter"

    def __init__(self, loader):
        self._loader = loader
        self._sampler_iter = iter(loader.batch_sampler if loader.batch_sampler is not None
                                  else loader.sampler)
        self._base_seed = _fresh_seed(loader.generator)
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __next__(self):
        loader = self._loader
        index = next(self._sampler_iter)
        if loader.batch_sampler is not None:
            data = [_item(loader.dataset, i) for i in index]
        else:
            data = _item(loader.dataset, index)
        self._num_yielded += 1
        return loader.collate_fn(data)

    def __len__(self):
        return len(self._loader)
