"""minigrad.nn.utils.rnn: PackedSequence and the padding helpers, as torch.nn.utils.rnn.

A PackedSequence holds the time steps of a batch of variable-length sequences, sorted by
decreasing length, one after the other: step t's rows are the first batch_sizes[t] sequences'
elements t. torch's native parts (_pack_padded_sequence, _pad_packed_sequence, pad_sequence in
aten/src/ATen/native/PackedSequence.cpp) are written here from existing ops in the same shape,
checks in the same order, so their graphs, grad_fn names and messages are torch's: packing is
one gather (PackPaddedSequenceBackward0; its backward scatters into zeros), padding fills a new
tensor and copies slices into it (CopySlices).
"""
import numbers
from collections.abc import Iterable
from typing import NamedTuple

from ... import creation, dtypes
from ...autograd.function import apply_first
from ...dtypes import int64
from ...ops.index import Index
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The data and batch_sizes of a packed batch of sequences (and the permutation that sorted
    the batch by length, with its inverse). Made by pack_padded_sequence / pack_sequence; every
    RNN module takes one. data may be on any device and of any dtype; batch_sizes is always a CPU
    int64 tensor; the indices are int64 on data's device.

    Two call forms: PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices) and the
    older PackedSequence((data, batch_sizes), sorted_indices=...)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_fields(data, batch_sizes, sorted_indices, unsorted_indices))

    def to(self, *args, **kwargs):
        """data.to(*args, **kwargs), the indices following data to its device; self where data is
        already of that dtype and device (batch_sizes stays on the CPU)."""
        moved = self.data.to(*args, **kwargs)
        if moved is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)

        def follow(index):
            return None if index is None else index.to(moved.device, non_blocking=non_blocking)
        return type(self)(moved, self.batch_sizes, follow(self.sorted_indices), follow(self.unsorted_indices))

    def _to_device_kind(self, kind, args, kwargs):
        """.cuda() / .cpu(): the conversion args ask for, onto a `kind` device unless the args
        already lead there (a probe tensor tells where they lead)."""
        probe = creation.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if probe.device.type != kind:
            kwargs["device"] = kind
        return self.to(*args, **kwargs)

    def cuda(self, *args, **kwargs):
        return self._to_device_kind("cuda", args, kwargs)

    def cpu(self, *args, **kwargs):
        return self._to_device_kind("cpu", args, kwargs)

    @property
    def is_cuda(self):
        """Whether data is on a GPU."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether data is in pinned memory: never, minigrad allocates no pinned host memory."""
        return False


def _dtype_method(method, dtype_name):
    def convert(self):
        return self.to(dtype=getattr(dtypes, dtype_name))
    convert.__name__ = convert.__qualname__ = method
    convert.__doc__ = f"The sequence with its data converted to {dtype_name}."
    return convert


for _method, _dtype_name in (("half", "float16"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"),
                             ("double", "float64"), ("float", "float32"), ("long", "int64"), ("int", "int32")):
    setattr(PackedSequence, _method, _dtype_method(_method, _dtype_name))


def _packed_fields(data, batch_sizes, sorted_indices, unsorted_indices):
    """PackedSequence's four fields from either call form. unsorted_indices, where given, is
    trusted to be sorted_indices' inverse (not checked, as in torch)."""
    inverse = invert_permutation(sorted_indices) if unsorted_indices is None else unsorted_indices
    if batch_sizes is None:  # the tuple form
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            raise AssertionError("Expected data to be a list or tuple of length 2")
        data, batch_sizes = data
    elif batch_sizes.device.type != "cpu":
        raise ValueError(
            "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
            "They should be instantiated by functions like pack_sequence and pack_padded_sequences in "
            "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
    return data, batch_sizes, sorted_indices, inverse


def invert_permutation(permutation):
    """The inverse of the 1-d index tensor permutation (None for None)."""
    if permutation is None:
        return None
    # inverse[permutation[i]] = i
    inverse = creation.empty_like(permutation)
    positions = creation.arange(0, permutation.numel(), device=permutation.device)
    inverse.scatter_(0, permutation, positions)
    return inverse


# ---- torch's argument checks of its native helpers ------------------------------------------------

def _check_long_tensor(t):
    """torch's checkLongTensor (it names the argument 'lengths' for batch_sizes too)."""
    if t.dim() != 1 or t.device.type != "cpu" or t.dtype is not int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D {t.device} "
                           f"{t.dtype._legacy[:-6]} tensor")


def _check_arg(fn, name, position, value, kind):
    ok = {"bool": lambda v: isinstance(v, bool),
          "int": lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool),
          "float": lambda v: isinstance(v, numbers.Real) or (isinstance(v, Tensor) and v.dim() == 0),
          "Number": lambda v: isinstance(v, numbers.Number) or (isinstance(v, Tensor) and v.dim() == 0),
          "str": lambda v: isinstance(v, str),
          "Tensor": lambda v: isinstance(v, Tensor)}[kind]
    if not ok(value):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be {kind}, not "
                        f"{'Tensor' if isinstance(value, Tensor) else type(value).__name__}")


def _number(value):
    return value.item() if isinstance(value, Tensor) else value


# ---- packing ------------------------------------------------------------------------------------

class _PackPadded(Index):
    """The rows (t, b) with t < lengths[b] of a (T, B, *) tensor (or (B, T, *)), in time-major
    order: one gather, whose backward scatters the gradient into zeros."""
    _node_name = "PackPaddedSequenceBackward0"


def _pack_padded(input, lengths, batch_first):
    """torch's _VF._pack_padded_sequence: (data, batch_sizes) of input packed by the sorted lengths."""
    _check_arg("_pack_padded_sequence", "input", 1, input, "Tensor")
    _check_arg("_pack_padded_sequence", "lengths", 2, lengths, "Tensor")
    _check_arg("_pack_padded_sequence", "batch_first", 3, batch_first, "bool")
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    t_dim, b_dim = (1, 0) if batch_first else (0, 1)
    if batch_first:
        input.transpose(0, 1)  # torch's error for a 1-d input comes from this transpose
    _check_long_tensor(lengths)
    batch_size = input.size(b_dim)
    if lengths.size(0) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size(0)} "
                           f"(batch_size={batch_size})")
    lens = lengths.tolist()
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(lens[i + 1] > lens[i] for i in range(batch_size - 1)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    # batch_sizes counts the sequences longer than each step up to the longest length; as in
    # torch, a length past the input's T steps gives steps with no rows in data
    steps = creation.arange(lens[0])
    batch_sizes = (steps.unsqueeze(1) < lengths.unsqueeze(0)).sum(1)
    in_input = steps[:input.size(t_dim)].unsqueeze(1) < lengths.unsqueeze(0)
    rows = in_input.nonzero().to(input.device)  # (t, b) pairs, time-major
    t_idx, b_idx = rows[:, 0]._data, rows[:, 1]._data
    index = (b_idx, t_idx) if batch_first else (t_idx, b_idx)
    t_bounds = (0, min(lens[0], input.size(t_dim)) - 1)
    bounds = ((0, batch_size - 1), t_bounds) if batch_first else (t_bounds, (0, batch_size - 1))
    data = apply_first(_PackPadded, input, index, False, bounds)
    return data, batch_sizes


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded (T, B, *) batch (batch_first: (B, T, *)) of sequences of the given lengths (a
    list or a CPU tensor) into a PackedSequence. enforce_sorted: the lengths must be decreasing;
    otherwise the batch is sorted first, and the permutation kept in the result."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=int64)
    else:
        lengths = creation.as_tensor(lengths, dtype=int64, device="cpu")
    order = None
    if not enforce_sorted:
        # sort the batch by decreasing length; the permutation travels with the result so that
        # unpacking can put the sequences back
        lengths, order = lengths.sort(descending=True)
        order = order.to(input.device)
        input = input.index_select(0 if batch_first else 1, order)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, order, None)


# ---- padding ------------------------------------------------------------------------------------

def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """torch's _VF._pad_packed_sequence: (padded output, CPU int64 lengths), in sorted order."""
    _check_arg("_pad_packed_sequence", "data", 1, data, "Tensor")
    _check_arg("_pad_packed_sequence", "batch_sizes", 2, batch_sizes, "Tensor")
    _check_arg("_pad_packed_sequence", "batch_first", 3, batch_first, "bool")
    _check_arg("_pad_packed_sequence", "padding_value", 4, padding_value, "Number")
    _check_arg("_pad_packed_sequence", "total_length", 5, total_length, "int")
    _check_long_tensor(batch_sizes)
    sizes = batch_sizes.tolist()
    max_batch_size, max_real_seq_length = sizes[0], len(sizes)
    max_seq_length = max(max_real_seq_length, total_length) if total_length > 0 else max_real_seq_length
    tail = list(data.shape[1:])
    output = creation.full([max_seq_length, max_batch_size] + tail, _number(padding_value), dtype=data.dtype,
                           device=data.device)
    lengths = [0] * max_batch_size
    offset, prev_batch_size, prev_i = 0, max_batch_size, 0
    for i in range(max_real_seq_length + 1):
        batch_size = sizes[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            n = prev_batch_size * (i - prev_i)
            # output[prev_i:i, :prev_batch_size] = data[offset:offset + n] viewed as those steps
            block = data.narrow(0, offset, n).view([i - prev_i, prev_batch_size] + tail)
            output.narrow(0, prev_i, i - prev_i).narrow(1, 0, prev_batch_size).copy_(block)
            offset += n
            prev_i = i
        for j in range(batch_size, prev_batch_size):  # the sequences that ended before step i
            lengths[j] = i
        prev_batch_size = batch_size
    return (output.transpose(0, 1) if batch_first else output), creation.tensor(lengths, dtype=int64)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded (T, B, *) tensor (batch_first: (B, T, *)),
    CPU int64 lengths), the batch in its original order; T is total_length where given."""
    longest = sequence.batch_sizes.size(0)  # one batch_sizes entry per time step
    if total_length is not None and total_length < longest:
        raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                         f"but got total_length={total_length} and max sequence length being {longest}")
    steps = longest if total_length is None else total_length
    padded, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first, padding_value, steps)
    restore = sequence.unsorted_indices
    if restore is None:  # packed from an already sorted batch
        return padded, lengths
    return padded.index_select(0 if batch_first else 1, restore), lengths[restore.cpu()]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack the (L_i, *) tensors of sequences into one (T, B, *) tensor (batch_first: (B, T, *)),
    T the longest L_i, each padded with padding_value after its end (padding_side='left': before
    its start). The result has the first sequence's dtype and device."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(s).__name__}")
    _check_arg("pad_sequence", "batch_first", 2, batch_first, "bool")
    _check_arg("pad_sequence", "padding_value", 3, padding_value, "float")
    _check_arg("pad_sequence", "padding_side", 4, padding_side, "str")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    for s in sequences:
        if s.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    max_len = max(s.size(0) for s in sequences)
    n = len(sequences)
    out_dims = [n, max_len] if batch_first else [max_len, n]
    out = creation.full(out_dims + list(first.shape[1:]), float(_number(padding_value)), dtype=first.dtype,
                        device=first.device)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of the sequences of a padded (T, B, *) tensor (batch_first: (B, T, *)), each cut to
    its length."""
    # torch transposes a time-major argument in place (transpose_); minigrad has no in-place
    # transpose, so the caller's tensor is left as it was
    batch_major = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    positions = creation.arange(batch_major.shape[1], device=lengths.device)
    # torch indexes a CUDA sequence with the CPU mask directly; minigrad's indexing wants the
    # mask on the sequence's device
    return [row[(positions < n).to(row.device)] for row, n in zip(batch_major, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence(pad_sequence(sequences), lengths): a list of (L_i, *) tensors packed
    (sorted by decreasing length unless enforce_sorted)."""
    lengths = creation.as_tensor([seq.size(0) for seq in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of the sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
