"""Recurrent layers: nn.RNN, nn.LSTM, nn.GRU and the cells nn.RNNCell, nn.LSTMCell, nn.GRUCell.

Composed from existing ops (F.linear, sigmoid, tanh, relu, elementwise ops, unbind/stack/cat),
so they run on every backend and differentiate through the ordinary autograd graph. The gate
formulas are torch's (aten/src/ATen/native/RNN.cpp), term for term, so float64 results agree
with torch's to rounding: LSTM gates (i, f, g, o); GRU gates (r, z, n) with
n = tanh(W_in x + b_in + r * (W_hn h + b_hn)) and h' = (h - n) * z + n.
"""
import math
import numbers
import warnings

from ... import creation
from ...ops.join import cat, stack
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---- one time step (torch's *_cell functions) --------------------------------------------------

def _rnn_step(act):
    def step(gi, h, w_hh, b_hh):
        return act(gi + F.linear(h, w_hh, b_hh))
    return step


def _lstm_step(gi, hc, w_hh, b_hh, w_hr=None):
    h, c = hc
    # hh + ih in torch's order: the same sum, and torch's message where the batches differ
    i, f, g, o = (F.linear(h, w_hh, b_hh) + gi).chunk(4, 1)
    cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
    hy = o.sigmoid() * cy.tanh()
    if w_hr is not None:
        hy = F.linear(hy, w_hr)
    return hy, cy


def _gru_step(gi, h, w_hh, b_hh):
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (h - n) * z + n


def _step_for(mode):
    if mode == "LSTM":
        return _lstm_step
    if mode == "GRU":
        return _gru_step
    return _rnn_step(F.relu if mode == "RNN_RELU" else F.tanh)


# ---- cells ---------------------------------------------------------------------------------------

def _check_cell(input, hx, input_size, hidden_size, name):
    """torch's check_rnn_cell_forward_input / _hidden (in that order, on the 2-d forms)."""
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {input_size}")
    for i, h in enumerate(hx):
        if h.size(0) != input.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match {name}{i} batch size {h.size(0)}")
        if h.size(1) != hidden_size:
            raise RuntimeError(f"{name}{i} has inconsistent hidden_size: got {h.size(1)}, expected {hidden_size}")


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty((num_chunks * hidden_size, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(creation.empty((num_chunks * hidden_size, hidden_size), dtype=dtype,
                                                  device=device))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, n_states):
        """(2-d input, tuple of 2-d states, batched?) after torch's dimension checks (zero states
        when hx is None)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            states = tuple(hx) if n_states > 1 else (hx,)
            for idx, value in enumerate(states):
                if value.dim() not in (1, 2):
                    what = f"hx[{idx}]" if n_states > 1 else "hidden"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            states = (zeros,) * n_states
        else:
            states = tuple(s if is_batched else s.unsqueeze(0) for s in states[:n_states])
        return input, states, is_batched

    def _input_gates(self, input, states):
        """W_ih x + b_ih, after torch's size checks of input and states (done inside its cell op)."""
        _check_cell(input, states, self.input_size, self.hidden_size, "hidden")
        return F.linear(input, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    """h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._prepare(input, hx, 1)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        step = _rnn_step(F.tanh if self.nonlinearity == "tanh" else F.relu)
        ret = step(self._input_gates(input, (h,)), h, self.weight_hh, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, is_batched = self._prepare(input, hx, 2)
        h, c = _lstm_step(self._input_gates(input, states), states, self.weight_hh, self.bias_hh)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._prepare(input, hx, 1)
        ret = _gru_step(self._input_gates(input, (h,)), h, self.weight_hh, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


# ---- multi-layer, optionally bidirectional sequences --------------------------------------------

def _mini_batch(rnn, input, batch_sizes):
    if batch_sizes is not None:  # a packed input: the batch of its first step
        return int(batch_sizes[0])
    return input.size(0) if rnn.batch_first else input.size(1)


def _packed_forward_layer(step, gis, batch_sizes, init):
    """One direction of one layer over packed steps, as torch's PackedLayer: step t runs on the
    first batch_sizes[t] rows; a sequence's final state is saved at the step it ends. gis: the
    input projections of each step; init: the states (B, *). Returns (outputs, final states)."""
    hidden, last, ended, outputs = init, batch_sizes[0], [], []
    for t, b in enumerate(batch_sizes):
        if b < last:  # sequences b..last-1 ended at step t - 1
            ended.append(tuple(h[b:last] for h in hidden))
            hidden = tuple(h[:b] for h in hidden)
        last = b
        hidden = step(gis[t], hidden)
        outputs.append(hidden[0])
    ended.append(hidden)
    ended.reverse()
    finals = tuple(cat([e[j] for e in ended], 0) if len(ended) > 1 else ended[0][j] for j in range(len(init)))
    return outputs, finals


def _packed_reverse_layer(step, gis, batch_sizes, init):
    """The backward direction, as torch's ReversedPackedLayer: from the last step back, each
    sequence joining (with its initial state) at its own last valid step."""
    last = batch_sizes[-1]
    hidden, outputs = tuple(h[:last] for h in init), []
    for t in range(len(batch_sizes) - 1, -1, -1):
        b = batch_sizes[t]
        if b > last:
            hidden = tuple(cat([h, h0[last:b]], 0) for h, h0 in zip(hidden, init))
        last = b
        hidden = step(gis[t], hidden)
        outputs.append(hidden[0])
    outputs.reverse()
    return outputs, hidden


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
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=3)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size

        def empty(*shape):
            return Parameter(creation.empty(shape, dtype=dtype, device=device))

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                params = [empty(gate_size, layer_input_size), empty(gate_size, real_hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [empty(gate_size), empty(gate_size)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(empty(proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                names = [n.format(layer, "_reverse" if direction == 1 else "") for n in names]
                for name, param in zip(names, params):
                    setattr(self, name, param)
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
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ---- torch's argument checks ----
    def check_input(self, input, batch_sizes=None):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                             f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes=None):
        mini_batch = _mini_batch(self, input, batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        """hx with its batch (dim 1) reordered by permutation (None: as it is)."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    # ---- the computation ----
    def _zeros(self, input, size):
        num_directions = 2 if self.bidirectional else 1
        batch = input.size(0) if self.batch_first else input.size(1)
        return creation.zeros(self.num_layers * num_directions, batch, size, dtype=input.dtype, device=input.device)

    def _run(self, input, states):
        """input (T, B, H_in) or batch_first; states: a tuple of (L*D, B, *) tensors. Returns the
        output and the tuple of final states, each stacked as the inputs."""
        if input.size(0 if not self.batch_first else 1) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        x = input.transpose(0, 1) if self.batch_first else input
        step = _step_for(self.mode)
        lstm = self.mode == "LSTM"
        num_directions = 2 if self.bidirectional else 1
        per_state = [s.unbind(0) for s in states]
        finals = [[] for _ in states]
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = F.dropout(x, self.dropout, True)
            outs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                w = [getattr(self, n) for n in self._all_weights[k]]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                extra = (w[-1],) if self.proj_size > 0 else ()
                # the input projection of every time step at once: one GEMM
                gis = F.linear(x, w_ih, b_ih).unbind(0)
                order = range(len(gis)) if direction == 0 else range(len(gis) - 1, -1, -1)
                state = tuple(s[k] for s in per_state)
                hs = [None] * len(gis)
                for t in order:
                    if lstm:
                        state = step(gis[t], state, w_hh, b_hh, *extra)
                    else:
                        state = (step(gis[t], state[0], w_hh, b_hh),)
                    hs[t] = state[0]
                outs.append(stack(hs, 0))
                for f, s in zip(finals, state):
                    f.append(s)
            x = outs[0] if num_directions == 1 else cat(outs, 2)
        output = x.transpose(0, 1) if self.batch_first else x
        return output, tuple(stack(f, 0) for f in finals)

    def _run_packed(self, data, batch_sizes, states):
        """_run for packed data (N, H_in) with the steps' batch sizes (a list): returns the
        packed output (N, D * H_out) and the final states (each sequence's last valid step)."""
        step = _step_for(self.mode)
        lstm = self.mode == "LSTM"
        num_directions = 2 if self.bidirectional else 1
        offsets = [0]
        for b in batch_sizes:
            offsets.append(offsets[-1] + b)
        per_state = [s.unbind(0) for s in states]
        finals = [[] for _ in states]
        x = data
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = F.dropout(x, self.dropout, True)
            outs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                w = [getattr(self, n) for n in self._all_weights[k]]
                w_hh = w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                extra = (w[-1],) if self.proj_size > 0 else ()
                gi = F.linear(x, w[0], b_ih)  # every packed row's input projection: one GEMM
                gis = [gi[offsets[t]:offsets[t + 1]] for t in range(len(batch_sizes))]
                if lstm:
                    def cell(g, state):
                        return step(g, state, w_hh, b_hh, *extra)
                else:
                    def cell(g, state):
                        return (step(g, state[0], w_hh, b_hh),)
                layer_fn = _packed_forward_layer if direction == 0 else _packed_reverse_layer
                hs, state = layer_fn(cell, gis, batch_sizes, tuple(s[k] for s in per_state))
                outs.append(cat(hs, 0))
                for f, s in zip(finals, state):
                    f.append(s)
            x = outs[0] if num_directions == 1 else cat(outs, 1)
        return x, tuple(stack(f, 0) for f in finals)

    def _forward_packed(self, packed, hx):
        """forward of a PackedSequence, as torch: hx's batch is in the caller's order, so it is
        permuted by sorted_indices, and the final states back by unsorted_indices."""
        input, batch_sizes, sorted_indices, unsorted_indices = packed
        max_batch_size = int(batch_sizes[0])
        num_directions = 2 if self.bidirectional else 1
        lstm = self.mode == "LSTM"
        if hx is None:
            def zeros(size):
                return creation.zeros(self.num_layers * num_directions, max_batch_size, size, dtype=input.dtype,
                                      device=input.device)
            real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (zeros(real_hidden_size), zeros(self.hidden_size)) if lstm else zeros(self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if not lstm:
            self.check_forward_args(input, hx, batch_sizes)
        elif (hx[0].size(2) != hx[1].size(2)) != (self.proj_size > 0):
            # torch's LSTM leaves a packed input's checks to its kernel, which takes h and c of
            # different sizes for a projection, and then expects one more weight per layer
            raise RuntimeError("got an incorrect number of RNN parameters")
        states = tuple(hx) if lstm else (hx,)
        output, finals = self._run_packed(input, batch_sizes.tolist(), states)
        hidden = finals if lstm else finals[0]
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), \
            self.permute_hidden(hidden, unsorted_indices)

    def _unbatched_check(self, input):
        if input.dim() not in (2, 3):
            name = type(self).__name__
            if name == "RNN":
                raise ValueError(f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        return input.dim() == 3


class _SingleStateRNN(RNNBase):
    """RNN and GRU: one hidden state tensor."""

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        is_batched = self._unbatched_check(input)
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx, None)
        output, (hidden,) = self._run(input, (hx,))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(_SingleStateRNN):
    """Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu), stacked and
    optionally bidirectional. forward(input, hx=None) -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class GRU(_SingleStateRNN):
    """Multi-layer GRU with torch's gate order (r, z, n). forward(input, hx=None) -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Multi-layer LSTM with torch's gate order (i, f, g, o) and optional projection (proj_size).
    forward(input, hx=None) -> (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None):
        mini_batch = _mini_batch(self, input, batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        is_batched = self._unbatched_check(input)
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            hx = (self._zeros(input, self.proj_size if self.proj_size > 0 else self.hidden_size),
                  self._zeros(input, self.hidden_size))
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, (h, c) = self._run(input, (hx[0], hx[1]))
        if not is_batched:
            output = output.squeeze(batch_dim)
            h, c = h.squeeze(1), c.squeeze(1)
        return output, (h, c)
