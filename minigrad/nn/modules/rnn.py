"""Recurrent layers: nn.RNN, nn.LSTM, nn.GRU and the single-step cells nn.RNNCell, nn.LSTMCell,
nn.GRUCell.

Everything is built from ordinary differentiable ops (F.linear, the activations, chunk, slicing,
cat/stack), so the layers run on every backend and backpropagate through time with the normal
autograd graph; there is no fused kernel.

The recurrences, written with each state kept as a tuple (h,) or (h, c):
  Elman   h' = act(W_ih x + b_ih + W_hh h + b_hh)                     act = tanh or relu
  LSTM    i, f, g, o = split4(W_hh h + b_hh + W_ih x + b_ih)
          c' = sigmoid(f) c + sigmoid(i) tanh(g),  h' = sigmoid(o) tanh(c')   (h' = W_hr h' if projected)
  GRU     r = sigmoid(x_r + h_r),  z = sigmoid(x_z + h_z),  n = tanh(x_n + r * h_n)
          h' = (h - n) z + n          with x_* = W_i* x + b_i*, h_* = W_h* h + b_h*
The terms are added in the order aten adds them, which keeps float64 results equal to torch's up
to rounding. W_ih x for all time steps is computed up front in one matmul per layer and direction.
"""
import math
import numbers
import warnings
from itertools import accumulate

from ... import creation
from ...ops.join import cat, stack
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module
from ..._autocast import AUTOCAST_ON as _AUTOCAST_ON, STATE as _AUTOCAST_STATE, dispatch as _autocast


# ---- the per-step recurrences -------------------------------------------------------------------
# step(x_proj, state, w_hh, b_hh, w_hr=None) -> new state; x_proj = W_ih x + b_ih for this step,
# state a tuple whose first entry is the output h

def _elman(activation):
    def step(x_proj, state, w_hh, b_hh, w_hr=None):
        return (activation(x_proj + F.linear(state[0], w_hh, b_hh)),)
    return step


def _lstm(x_proj, state, w_hh, b_hh, w_hr=None):
    h, c = state
    # recurrent term first: that sum also gives torch's error when h and x disagree in batch
    in_gate, forget_gate, cell_gate, out_gate = (F.linear(h, w_hh, b_hh) + x_proj).chunk(4, 1)
    c = forget_gate.sigmoid() * c + in_gate.sigmoid() * cell_gate.tanh()
    h = out_gate.sigmoid() * c.tanh()
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru(x_proj, state, w_hh, b_hh, w_hr=None):
    (h,) = state
    x_reset, x_update, x_new = x_proj.chunk(3, 1)
    h_reset, h_update, h_new = F.linear(h, w_hh, b_hh).chunk(3, 1)
    reset = (x_reset + h_reset).sigmoid()
    update = (x_update + h_update).sigmoid()
    candidate = (x_new + reset * h_new).tanh()
    return ((h - candidate) * update + candidate,)


# mode -> (gates stacked in each weight, step function)
_RECURRENCES = {
    "LSTM": (4, _lstm),
    "GRU": (3, _gru),
    "RNN_TANH": (1, _elman(F.tanh)),
    "RNN_RELU": (1, _elman(F.relu)),
}


def _uniform_init(module):
    """Every parameter, in registration order, drawn from U(-1/sqrt(hidden), 1/sqrt(hidden))."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for p in module.parameters():
        init.uniform_(p, -bound, bound)


# ---- cells ---------------------------------------------------------------------------------------

class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size

        def fresh(*shape):
            return Parameter(creation.empty(shape, dtype=dtype, device=device))

        self.weight_ih = fresh(rows, input_size)
        self.weight_hh = fresh(rows, hidden_size)
        for name in ("bias_ih", "bias_hh"):
            if bias:
                setattr(self, name, fresh(rows))
            else:
                self.register_parameter(name, None)
        self.reset_parameters()

    def extra_repr(self):
        shown = [f"{self.input_size}", f"{self.hidden_size}"]
        settings = self.__dict__
        if settings.get("bias", True) is not True:
            shown.append(f"bias={self.bias}")
        if settings.get("nonlinearity", "tanh") != "tanh":
            shown.append(f"nonlinearity={self.nonlinearity}")
        return ", ".join(shown)

    def reset_parameters(self):
        _uniform_init(self)

    def _batched_states(self, input, hx, n_states):
        """Validate ranks and add the batch dim to unbatched calls. Returns (input (B, in),
        states as a tuple of (B, hidden), whether the call was batched); missing states are zeros."""
        cls = type(self).__name__
        if not 1 <= input.dim() <= 2:
            raise ValueError(f"{cls}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            given = tuple(hx) if n_states > 1 else (hx,)
            for i, s in enumerate(given):
                if s.dim() not in (1, 2):
                    label = f"hx[{i}]" if n_states > 1 else "hidden"
                    raise ValueError(f"{cls}: Expected {label} to be 1D or 2D, got {s.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            blank = creation.zeros(x.size(0), self.hidden_size, dtype=x.dtype, device=x.device)
            return x, (blank,) * n_states, batched
        return x, tuple(s if batched else s.unsqueeze(0) for s in given[:n_states]), batched

    def _project_input(self, input, states, w_ih, b_ih):
        """W_ih x + b_ih, after the size checks torch's cell ops make (input first, then each state)."""
        batch, width = input.size(0), input.size(1)
        if width != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {width} expected {self.input_size}")
        for i, s in enumerate(states):
            if s.size(0) != batch:
                raise RuntimeError(f"Input batch size {batch} doesn't match hidden{i} batch size {s.size(0)}")
            if s.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {s.size(1)}, "
                                   f"expected {self.hidden_size}")
        return F.linear(input, w_ih, b_ih)

    def _one_step(self, step, input, hx, n_states):
        x, states, batched = self._batched_states(input, hx, n_states)
        if step is None:  # RNNCell: the nonlinearity is checked only now, as torch does
            step = _cell_elman_step(self.nonlinearity)
        new = _cell(self, step, x, states, self.weight_ih, self.bias_ih, self.weight_hh, self.bias_hh)
        return new if batched else tuple(s.squeeze(0) for s in new)


def _cell(cell, step, x, states, w_ih, b_ih, w_hh, b_hh):
    """One step of a cell: torch's lstm_cell / gru_cell / rnn_tanh_cell / rnn_relu_cell, which CUDA
    autocast runs in float16 (inputs, states and weights cast; on the CPU only the inner linears)."""
    if _AUTOCAST_ON[0]:
        op = _CELL_OPS.get(step) or f"rnn_{cell.nonlinearity}_cell"
        if (r := _autocast(op, _cell, cell, step, x, states, w_ih, b_ih, w_hh, b_hh)) is not None:
            return r
    return step(cell._project_input(x, states, w_ih, b_ih), states, w_hh, b_hh)


_CELL_OPS = {_lstm: "lstm_cell", _gru: "gru_cell"}


def _cell_elman_step(nonlinearity):
    if nonlinearity == "tanh":
        return _RECURRENCES["RNN_TANH"][1]
    if nonlinearity == "relu":
        return _RECURRENCES["RNN_RELU"][1]
    raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")


class RNNCell(RNNCellBase):
    """h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._one_step(None, input, hx, 1)[0]


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._one_step(_lstm, input, hx, 2)


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._one_step(_gru, input, hx, 1)[0]


# ---- walking a recurrence along a sequence -------------------------------------------------------
# A batch of sequences of unequal length is walked the way a PackedSequence stores it: sorted
# longest first, so at step t only the first sizes[t] sequences are still running and the batch
# can only shrink with t. A padded (T, B, *) input is the special case where every size is B.

def _walk_forward(step, inputs, sizes, state):
    """Steps 0..T-1. When the batch shrinks, the rows that drop out have reached their last step:
    their states are set aside and put back under the survivors' at the end (the sequences keep
    their row order). Returns the per-step outputs and the final state of every sequence."""
    retired = []  # set-aside states, the most recently retired (lowest rows) first
    running = sizes[0]
    outputs = []
    for x_t, n in zip(inputs, sizes):
        if n < running:
            retired.insert(0, tuple(s[n:running] for s in state))
            state = tuple(s[:n] for s in state)
        running = n
        state = step(x_t, state)
        outputs.append(state[0])
    if retired:
        state = tuple(cat([s, *(r[j] for r in retired)], 0) for j, s in enumerate(state))
    return outputs, state


def _walk_backward(step, inputs, sizes, initial):
    """Steps T-1..0. A sequence enters the walk at its own last step, starting from its initial
    state, so the batch grows as t decreases; at t = 0 every sequence is in."""
    running = sizes[-1]
    state = initial if running == initial[0].shape[0] else tuple(s[:running] for s in initial)
    outputs = [None] * len(inputs)
    for t in range(len(inputs) - 1, -1, -1):
        n = sizes[t]
        if n > running:
            state = tuple(cat([s, s0[running:n]], 0) for s, s0 in zip(state, initial))
        running = n
        state = step(inputs[t], state)
        outputs[t] = state[0]
    return outputs, state


class _PaddedSteps:
    """Time-major padded data (T, B, *): step t is row t."""

    def __init__(self, length, batch):
        self.sizes = [batch] * length

    def split(self, projected):
        return projected.unbind(0)

    def join(self, outputs):
        return stack(outputs, 0)


class _PackedSteps:
    """PackedSequence data (N, *): step t is the next sizes[t] rows."""

    def __init__(self, sizes):
        self.sizes = sizes
        self._edges = list(accumulate(sizes, initial=0))

    def split(self, projected):
        return [projected[a:b] for a, b in zip(self._edges, self._edges[1:])]

    def join(self, outputs):
        return cat(outputs, 0)


# ---- multi-layer, optionally bidirectional sequences --------------------------------------------

def _check_rnn_config(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                         "element being zeroed")
    if num_layers == 1 and dropout > 0:
        # stacklevel 4: past this helper, RNNBase.__init__ and the subclass's __init__, to the user
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                      f"expects num_layers greater than 1, but got dropout={dropout} and "
                      f"num_layers={num_layers}", stacklevel=4)
    for name, flag in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(flag).__name__}")
    for name, size in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(size, int):
            raise TypeError(f"{name} should be of type int, got: {type(size).__name__}")
        if size <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if mode not in _RECURRENCES:
        raise ValueError("Unrecognized RNN mode: " + mode)


def _weight_groups(mode, input_size, hidden_size, num_layers, bias, bidirectional, proj_size):
    """[(name, shape), ...] for each (layer, direction) in torch's order: weight_ih, weight_hh,
    bias_ih, bias_hh, weight_hr, suffixed _l{layer} and _reverse for the backward direction."""
    rows = _RECURRENCES[mode][0] * hidden_size
    out_width = proj_size if proj_size > 0 else hidden_size
    suffixes = ("", "_reverse") if bidirectional else ("",)
    groups = []
    for layer in range(num_layers):
        in_width = input_size if layer == 0 else out_width * len(suffixes)
        for suffix in suffixes:
            tag = f"_l{layer}{suffix}"
            group = [("weight_ih" + tag, (rows, in_width)), ("weight_hh" + tag, (rows, out_width))]
            if bias:
                group += [("bias_ih" + tag, (rows,)), ("bias_hh" + tag, (rows,))]
            if proj_size > 0:
                group.append(("weight_hr" + tag, (proj_size, hidden_size)))
            groups.append(group)
    return groups


class RNNBase(Module):
    """Parameters weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} (and weight_hr_l{k}
    for a projected LSTM), "_reverse" for the backward direction, in torch's order and shapes."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_rnn_config(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)

        self._flat_weights_names = []
        self._all_weights = []
        for group in _weight_groups(mode, input_size, hidden_size, num_layers, bias, bidirectional, proj_size):
            names = [name for name, _ in group]
            for name, shape in group:
                setattr(self, name, Parameter(creation.empty(shape, dtype=dtype, device=device)))
            self._flat_weights_names.extend(names)
            self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op: there is no cuDNN weight buffer to compact."""

    def reset_parameters(self):
        _uniform_init(self)

    def extra_repr(self):
        shown = [f"{self.input_size}, {self.hidden_size}"]
        optional = (("proj_size", self.proj_size != 0), ("num_layers", self.num_layers != 1),
                    ("bias", self.bias is not True), ("batch_first", self.batch_first is not False),
                    ("dropout", self.dropout != 0), ("bidirectional", self.bidirectional is not False))
        shown += [f"{name}={getattr(self, name)}" for name, differs in optional if differs]
        return ", ".join(shown)

    # ---- sizes and the states' layout ----
    @property
    def _directions(self):
        return 2 if self.bidirectional else 1

    def _state_widths(self):
        """Widths of the carried states: (h,) or, for an LSTM, (h, c), h being proj_size wide when
        the LSTM projects."""
        if self.mode == "LSTM":
            return (self.proj_size if self.proj_size > 0 else self.hidden_size), self.hidden_size
        return (self.hidden_size,)

    def _zero_states(self, batch, like):
        depth = self.num_layers * self._directions
        return tuple(creation.zeros(depth, batch, width, dtype=like.dtype, device=like.device)
                     for width in self._state_widths())

    # ---- torch's argument checks (public in torch, kept under the same names) ----
    def check_input(self, input, batch_sizes=None):
        weight = self._flat_weights[0]
        # as torch's: no dtype check while any autocast is on (the casts make the dtypes agree)
        if input.dtype != weight.dtype and not (_AUTOCAST_ON[0] and any(_AUTOCAST_STATE.enabled.values())):
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: "
                             f"model.to({input.dtype})")
        rank = 3 if batch_sizes is None else 2
        if input.dim() != rank:
            raise RuntimeError(f"input must have {rank} dimensions, got {input.dim()}")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def _batch_of(self, input, batch_sizes):
        if batch_sizes is not None:  # packed: the batch of the first (widest) step
            return int(batch_sizes[0])
        return input.size(0 if self.batch_first else 1)

    def get_expected_hidden_size(self, input, batch_sizes=None):
        width = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * self._directions, self._batch_of(input, batch_sizes), width)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        """hx with its batch (dim 1) reordered by permutation (None: as it is)."""
        return hx if permutation is None else hx.index_select(1, permutation)

    # ---- the computation ----
    def _direction_weights(self, index, given=None):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of one (layer, direction), None where absent (from given,
        a name -> tensor dict, when there is one)."""
        by_kind = {name.partition("_l")[0]: (getattr(self, name) if given is None else given[name])
                   for name in self._all_weights[index]}
        return tuple(by_kind.get(kind) for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    def _stack_layers(self, x, steps, states):
        """Run every layer and direction over x, laid out as steps says (_PaddedSteps or
        _PackedSteps). states: tuple of (layers * directions, B, *) initial states. Returns the
        last layer's output, directions concatenated on the last dim, and the final states
        stacked like the initial ones."""
        if _AUTOCAST_ON[0]:
            # autocast: torch's cuDNN RNN (CUDA) and oneDNN LSTM layer (CPU) run in the lower
            # precision, inputs, states and weights cast; the CPU GRU and RNN only in their linears
            op = "_cudnn_rnn" if x.device.type == "cuda" else ("mkldnn_rnn_layer" if self.mode == "LSTM" else None)
            if op is not None and (r := _autocast(op, self._run_layers, x, steps, states,
                                                  tuple(self._flat_weights))) is not None:
                return r
        return self._run_layers(x, steps, states, None)

    def _run_layers(self, x, steps, states, weights):
        """_stack_layers with the weights given (in _flat_weights' order), or None: the module's."""
        given = None if weights is None else dict(zip(self._flat_weights_names, weights))
        step = _RECURRENCES[self.mode][1]
        initial = [s.unbind(0) for s in states]
        finals = [[] for _ in states]
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:  # between layers only
                x = F.dropout(x, self.dropout, True)
            outputs = []
            for direction in range(self._directions):
                index = layer * self._directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._direction_weights(index, given)
                inputs = steps.split(F.linear(x, w_ih, b_ih))  # every step's W_ih x in one matmul

                def cell(x_t, state, w_hh=w_hh, b_hh=b_hh, w_hr=w_hr):
                    return step(x_t, state, w_hh, b_hh, w_hr)

                walk = _walk_backward if direction else _walk_forward
                hs, last = walk(cell, inputs, steps.sizes, tuple(s[index] for s in initial))
                outputs.append(steps.join(hs))
                for acc, s in zip(finals, last):
                    acc.append(s)
            x = outputs[0] if len(outputs) == 1 else cat(outputs, -1)
        return x, tuple(stack(f, 0) for f in finals)

    def _forward_packed(self, packed, hx):
        """A PackedSequence: hx arrives in the caller's batch order, so it is put into the
        packed (sorted) order first and the final states are put back afterwards."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        lstm = self.mode == "LSTM"
        if hx is None:
            states = self._zero_states(int(batch_sizes[0]), data)
            hx = states if lstm else states[0]
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if not lstm:
            self.check_forward_args(data, hx, batch_sizes)
        elif (hx[0].size(2) != hx[1].size(2)) != (self.proj_size > 0):
            # torch's LSTM leaves a packed input's checks to its kernel, which takes h and c of
            # different sizes for a projection, and then expects one more weight per layer
            raise RuntimeError("got an incorrect number of RNN parameters")
        out, finals = self._stack_layers(data, _PackedSteps(batch_sizes.tolist()),
                                         tuple(hx) if lstm else (hx,))
        hidden = finals if lstm else finals[0]
        return (PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices),
                self.permute_hidden(hidden, unsorted_indices))

    def _forward_padded(self, input, hx):
        """A padded (T, B, in) input (batch-first or not, or unbatched (T, in))."""
        if not 2 <= input.dim() <= 3:
            cls = type(self).__name__
            suffix = " tensor" if cls == "RNN" else ""
            raise ValueError(f"{cls}: Expected input to be 2D or 3D, got {input.dim()}D{suffix} instead")
        batched = input.dim() == 3
        batch_axis, time_axis = (0, 1) if self.batch_first else (1, 0)
        lstm = self.mode == "LSTM"
        if not batched:
            input = input.unsqueeze(batch_axis)
        if hx is None:
            states = self._zero_states(input.size(batch_axis), input)
        else:
            states = (hx[0], hx[1]) if lstm else (hx,)
            rank = 3 if batched else 2
            if any(s.dim() != rank for s in states):
                what = "batched 3-D" if batched else "unbatched 2-D"
                if lstm:
                    raise RuntimeError(f"For {what} input, hx and cx should also be {rank}-D but got "
                                       f"({states[0].dim()}-D, {states[1].dim()}-D) tensors")
                raise RuntimeError(f"For {what} input, hx should also be {rank}-D but got {hx.dim()}-D tensor")
            if not batched:
                states = tuple(s.unsqueeze(1) for s in states)
        self.check_forward_args(input, states if lstm else states[0], None)

        if input.size(time_axis) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        x = input.transpose(0, 1) if self.batch_first else input
        out, finals = self._stack_layers(x, _PaddedSteps(x.size(0), x.size(1)), states)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(batch_axis)
            finals = tuple(s.squeeze(1) for s in finals)
        return out, (finals if lstm else finals[0])

    def _forward(self, input, hx):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        return self._forward_padded(input, hx)


def _no_projection(kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu), stacked and
    optionally bidirectional. forward(input, hx=None) -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        _no_projection(kwargs)
        args = list(args)
        # nonlinearity is the 4th positional argument of RNN, but not one of RNNBase
        self.nonlinearity = args.pop(3) if len(args) > 3 else kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_" + self.nonlinearity.upper(), *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class GRU(RNNBase):
    """Multi-layer GRU with torch's gate order (r, z, n). forward(input, hx=None) -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        _no_projection(kwargs)
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class LSTM(RNNBase):
    """Multi-layer LSTM with torch's gate order (i, f, g, o) and optional projection (proj_size).
    forward(input, hx=None) -> (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None):
        return (self.num_layers * self._directions, self._batch_of(input, batch_sizes), self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        expected = (self.get_expected_hidden_size(input, batch_sizes), self.get_expected_cell_size(input, batch_sizes))
        for i, size in enumerate(expected):  # h, then c
            self.check_hidden_size(hidden[i], size, f"Expected hidden[{i}] size {{}}, got {{}}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return tuple(s.index_select(1, permutation) for s in hx[:2])

    def forward(self, input, hx=None):
        return self._forward(input, hx)
