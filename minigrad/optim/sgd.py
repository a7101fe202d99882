"""SGD: stochastic gradient descent, optionally with momentum, Nesterov momentum and weight decay."""
from ..backends import numpy_backend as _numpy_backend
from ..tensor import _make
from . import optimizer as _optimizer
from .optimizer import Optimizer, _blocks, _bump, _check_scalar_tensor, _scalar


class SGD(Optimizer):
    """torch.optim.SGD, with the same arguments, defaults, state names and update:

        g = grad (negated if maximize) + weight_decay * p
        buf = g (first step), else momentum * buf + (1 - dampening) * g
        g = g + momentum * buf if nesterov else buf      (when momentum != 0)
        p -= lr * g
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check_scalar_tensor(lr, "lr")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(nesterov=False, maximize=False, foreach=None, differentiable=False, fused=False)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = None if closure is None else self._closure_loss(closure)
        for group in self.param_groups:
            lr = group["lr"]
            if lr.__class__ is not float:
                lr = _scalar(lr)
            if group["momentum"] or group["weight_decay"]:
                self._general_step(group, lr)
                continue
            # the plain update p -= lr * g, as p += (-lr) * g (the same bits); maximize: p += lr * g
            alpha = lr if group["maximize"] else -lr
            lists = None  # GPU parameters: backend -> (params' arrays, grads' arrays), one foreach call each
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                be = p._device.backend
                gd = g._data
                if be is not _numpy_backend:
                    if lists is None:
                        lists = {}
                    pair = lists.get(be)
                    if pair is None:
                        pair = lists[be] = ([], [])
                    pair[0].append(p._data)
                    pair[1].append(gd)
                elif gd.size <= _optimizer._BLOCK:  # _blocks would return it whole: skip the call
                    be.axpy(p._data, gd, alpha)
                else:
                    for pb, gb in _blocks(p._device, p._data, gd):
                        be.axpy(pb, gb, alpha)
                vc = p._vc
                if vc is None:
                    p._vc = [1, 0]
                else:
                    vc[0] += 1
            if lists is not None:  # torch's foreach path: few launches for many parameters
                for be, (ps, gs) in lists.items():
                    be.foreach_axpy(ps, gs, alpha)
        return loss

    def _general_step(self, group, lr):
        """The update with momentum or weight decay: the backend's foreach_sgd over the group's
        parameters on each backend (up to eight per launch on a GPU); on the CPU a large
        parameter goes in blocks (see _blocks), each one list entry."""
        momentum = group["momentum"]
        state = self.state
        lists = {}  # backend -> (params, grads, momentum buffers, firsts)
        for p in group["params"]:
            g = p._grad
            if g is None:
                continue
            be = p._device.backend
            entry = lists.get(be)
            if entry is None:
                entry = lists[be] = ([], [], [], [])
            buf = first = None
            if momentum:
                param_state = state[p]
                buf = param_state.get("momentum_buffer")
                first = buf is None
                if first:  # filled with the first step's update
                    param_state["momentum_buffer"] = buf = _make(be.empty(p._data.shape, p._data.dtype),
                                                                 p._device)
                buf = buf._data
            for pb, gb, b in _blocks(p._device, p._data, g._data, buf):
                entry[0].append(pb)
                entry[1].append(gb)
                entry[2].append(b)
                entry[3].append(first)
            _bump(p)
        for be, (ps, gs, bufs, firsts) in lists.items():
            be.foreach_sgd(ps, gs, bufs if momentum else None, firsts, lr=lr, momentum=momentum,
                           dampening=group["dampening"], weight_decay=group["weight_decay"],
                           nesterov=group["nesterov"], maximize=group["maximize"])
