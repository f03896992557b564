"""torch.nn.utils.rnn: padded and packed batches of sequences of different lengths.

PackedSequence is PyTorch's named tuple (data, batch_sizes, sorted_indices, unsorted_indices).
The functions are PyTorch's Python ones over the same ops, so that the graph holds PyTorch's
nodes: pack_padded_sequence sorts with index_select when enforce_sorted is False and packs with
_pack_padded_sequence (PackPaddedSequenceBackward0, an op of the table); pad_sequence and
pad_packed_sequence write into a tensor of the padding value through views, as PyTorch's C++
does (CopySlices), and unpad_sequence masks (IndexBackward0)."""

from collections import namedtuple

import numpy as np

from ..engine import dtypes
from ..engine.tensor import Tensor, check_numel, check_pieces
from ..engine.torch_classes import TorchClass
from ..ops.registry import OPS

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


def _bind(optional, fn):
    return None if optional is None else fn(optional)


PackedSequence_ = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                 "unsorted_indices"])


class PackedSequence(PackedSequence_, metaclass=TorchClass):
    """The data and batch sizes of a packed batch of sequences (what pack_padded_sequence and
    pack_sequence make; every recurrent layer takes one)."""

    __slots__ = ()
    _torch_name = "torch.nn.utils.rnn.PackedSequence"

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """self.data converted (dtype or device) as Tensor.to converts it; self if it is
        already so."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def _converter(name, dtype):
    def convert(self):
        return self.to(dtype=dtype)
    convert.__name__ = convert.__qualname__ = name
    return convert


for _name, _dtype in (("double", "float64"), ("float", "float32"), ("half", "float16"),
                      ("long", "int64"), ("int", "int32"), ("short", "int16"),
                      ("char", "int8"), ("byte", "uint8")):
    setattr(PackedSequence, _name, _converter(_name, getattr(dtypes, _dtype)))


def invert_permutation(permutation):
    """The inverse of a permutation (None for None)."""
    if permutation is None:
        return None
    output = OPS["empty_like"](permutation)
    output.scatter_(0, permutation, OPS["arange"](0, permutation.numel()))
    return output


def _lengths_tensor(lengths):
    if isinstance(lengths, Tensor):
        return lengths.to(dtype=dtypes.int64)
    return OPS["as_tensor"](lengths, dtype=dtypes.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) ((B, T, *) with batch_first) of sequences of the given
    lengths; with enforce_sorted=False, sorted by decreasing length first."""
    lengths = _lengths_tensor(lengths)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = OPS["sort"](lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.dim() != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    values = [int(v) for v in lengths.tolist()]
    data = OPS["_pack_padded_sequence"].apply((input,), (tuple(values), bool(batch_first)))
    # (how many sequences are longer than t, for each step t: not a loop over the steps and
    # the sequences, T * B Python steps)
    ascending = np.sort(np.asarray(values, np.int64))
    batch_sizes = len(values) - np.searchsorted(ascending, np.arange(values[0]), side="right")
    return PackedSequence(data, OPS["tensor"](batch_sizes.astype(np.int64)), sorted_indices,
                          None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch (T, B, *) ((B, T, *) with batch_first) of a packed one, and its
    sequences' lengths, in the order the batch had before it was packed."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                         padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded_output.index_select(batch_dim, unsorted_indices),
                lengths[unsorted_indices])
    return padded_output, lengths


def batch_size_list(batch_sizes):
    """A PackedSequence's batch sizes as a list, checked as PyTorch's kernels check them (a
    program may make a PackedSequence of anything): a 1-D int64 tensor, not empty, each a
    Python step (of the recurrence, of the padding), as many as list(batch_sizes) makes."""
    if not isinstance(batch_sizes, Tensor):
        raise AttributeError(f"'{type(batch_sizes).__name__}' object has no attribute 'device'")
    if batch_sizes.dim() != 1 or batch_sizes.dtype is not dtypes.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{batch_sizes.dim()}D cpu {batch_sizes.dtype.short} tensor")
    if not batch_sizes.numel():
        raise RuntimeError("batch_sizes can not be empty")
    check_pieces(batch_sizes.numel())
    return batch_sizes.tolist()


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """aten's _pad_packed_sequence: a tensor of padding_value, each run of steps of one batch
    size copied in from data through a view (CopySlices), and the lengths."""
    sizes = batch_size_list(batch_sizes)
    max_batch = sizes[0]
    check_numel((max_batch,))   # (the lengths; a forged batch size of data of no features)
    steps = max(total_length, len(sizes))
    output = OPS["full"]([steps, max_batch] + list(data.shape[1:]), padding_value,
                         dtype=data.dtype)
    lengths = [0] * max_batch
    offset, prev_batch, prev_i = 0, max_batch, 0
    for i in range(len(sizes) + 1):
        batch = sizes[i] if i != len(sizes) else 0
        if batch != prev_batch:
            count = prev_batch * (i - prev_i)
            tmp = data[offset:offset + count]
            output[prev_i:i, :prev_batch].copy_(
                tmp.view([i - prev_i, prev_batch] + list(data.shape[1:])))
            offset += count
            prev_i = i
        for j in range(batch, prev_batch):
            lengths[j] = i
        prev_batch = batch
    if batch_first:
        output = output.transpose(0, 1)
    return output, OPS["tensor"](lengths, dtype=dtypes.int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """The sequences (each (L, *)) padded with padding_value to the longest one's length and
    stacked: (T, B, *), or (B, T, *) with batch_first; padding_side 'left' pads before."""
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}") from None
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    max_len = max(s.size(0) for s in sequences)
    trailing = list(first.shape[1:])
    dims = [len(sequences), max_len] if batch_first else [max_len, len(sequences)]
    out = OPS["full"](dims + trailing, padding_value, dtype=first.dtype)
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length (a list). Without batch_first
    the batch is transposed in place first, as PyTorch's is."""
    unpadded = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = OPS["arange"](padded_sequences.shape[1], device=lengths.device)
    for seq, length in zip(padded_sequences, lengths):
        unpadded.append(seq[idx < length])
    return unpadded


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (each (L, *)): pad_sequence, then pack_padded_sequence."""
    lengths = OPS["as_tensor"]([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a packed batch, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
