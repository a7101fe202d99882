"""nn.DataParallel: split the batch over devices, run a replica of the module on each, gather.

As torch's: with fewer than two devices it just calls the module. Otherwise each forward
scatters the inputs in chunks along `dim`, replicates the module onto each device (the
replicas' parameters are differentiable copies of the original parameters, so backward
sums every replica's gradient into the original `.grad`), runs the replicas in threads and
gathers the outputs onto `output_device`. `device_ids=["cpu", "cpu"]` runs the whole path
with CPU replicas, which is how it is tested without several GPUs.
"""
import sys
import threading
import traceback

from ..autograd.function import Function
from ..devices import canonical
from ..tensor import Tensor, _make
from ..ops.transfer import move
from .. import cuda as _cuda
from .modules.module import Module, _replica_registries


def _as_device(d):
    """A device from a device_ids / output_device entry: an int is a CUDA index (-1 the CPU)."""
    if isinstance(d, int) and not isinstance(d, bool):
        return canonical("cpu" if d == -1 else f"cuda:{d}")
    return canonical(d)


def _device_index(d):
    """torch stores device_ids and output_device as CUDA indices; a CPU device (minigrad's way
    to run the path without GPUs) stays a device."""
    dev = _as_device(d)
    return dev.index if dev.type == "cuda" else dev


def _device_label(dev):
    return str(dev.index) if dev.type == "cuda" else str(dev)


class Broadcast(Function):
    """A parameter's copy on a replica's device: forward copies (or aliases on the same device),
    backward carries the replica's gradient back to the original."""
    _builtin = True
    _node_name = "BroadcastBackward"

    @staticmethod
    def forward(ctx, p, device):
        ctx.src = p._device
        if device is p._device:
            return _make(p._data, device)
        return _make(move(p._data, p._device, device), device)

    @staticmethod
    def backward(ctx, g):
        return g.to(ctx.src), None


def scatter(obj, devices, dim=0):
    """obj split into len(devices) chunks: tensors chunked along dim and moved, containers
    recursed into, anything else repeated. Returns a list, one entry per chunk."""
    if isinstance(obj, Tensor):
        if obj.dim() == 0:
            raise ValueError("DataParallel can't scatter a 0-dim tensor; give the batch a dimension")
        chunks = obj.chunk(len(devices), dim)
        return [c.to(d) for c, d in zip(chunks, devices)]
    if isinstance(obj, tuple) and len(obj) > 0:
        parts = [scatter(o, devices, dim) for o in obj]
        n = min(len(p) for p in parts)
        return [type(obj)(*(p[i] for p in parts)) if hasattr(obj, "_fields")
                else tuple(p[i] for p in parts) for i in range(n)]
    if isinstance(obj, list) and len(obj) > 0:
        parts = [scatter(o, devices, dim) for o in obj]
        n = min(len(p) for p in parts)
        return [[p[i] for p in parts] for i in range(n)]
    if isinstance(obj, dict) and len(obj) > 0:
        keys = list(obj)
        parts = [scatter(obj[k], devices, dim) for k in keys]
        n = min(len(p) for p in parts)
        return [type(obj)(zip(keys, (p[i] for p in parts))) for i in range(n)]
    return [obj for _ in devices]


def scatter_kwargs(inputs, kwargs, devices, dim=0):
    inputs = scatter(inputs, devices, dim) if inputs else []
    kwargs = scatter(kwargs, devices, dim) if kwargs else []
    if len(inputs) < len(kwargs):
        inputs.extend(() for _ in range(len(kwargs) - len(inputs)))
    elif len(kwargs) < len(inputs):
        kwargs.extend({} for _ in range(len(inputs) - len(kwargs)))
    return tuple(inputs), tuple(kwargs)


def replicate(module, devices):
    """One shallow copy of module (and every submodule) per device, whose parameters are
    Broadcast outputs of the originals and whose buffers are copies (aliases on the same device)."""
    from ..autograd.grad_mode import is_grad_enabled
    replicas = []
    for dev in devices:
        copies = {}
        for m in module.modules():
            r = object.__new__(type(m))
            r.__dict__.update(m.__dict__)
            r.__dict__["_is_replica"] = True
            params = []
            for name, p in m._parameters.items():
                if p is None:
                    params.append((name, None))
                elif is_grad_enabled() and p.requires_grad:
                    params.append((name, Broadcast.apply(p, dev)))
                else:
                    params.append((name, p.detach().to(dev)))
            # the first replica's buffers are the originals (in-place updates in its forward, such
            # as running statistics, reach the module); the others get copies, as in torch, also
            # when they run on the same device
            buffers = [(name, None if b is None else
                        b if b._device is dev and not replicas else b.to(dev, copy=True))
                       for name, b in m._buffers.items()]
            _replica_registries(r, params, buffers, list(m._modules.items()))
            copies[id(m)] = r
        for r in copies.values():
            for name, child in list(r._modules.items()):
                if child is not None:
                    r._modules[name] = copies[id(child)]
        replicas.append(copies[id(module)])
    return replicas


class _ReplicaError:
    def __init__(self, index, device, exc_info):
        self.index, self.device = index, device
        self.exc_type = exc_info[0]
        self.msg = ("Caught {} in replica {} on device {}.\nOriginal {}".format(
            exc_info[0].__name__, index, _device_label(device),
            "".join(traceback.format_exception(*exc_info))))

    def reraise(self):
        try:
            err = self.exc_type(self.msg)
        except Exception:
            err = RuntimeError(self.msg)
        raise err


def parallel_apply(modules, inputs, kwargs_tup, devices):
    """Run modules[i](*inputs[i], **kwargs_tup[i]) in one thread per replica; outputs in order."""
    from ..autograd.grad_mode import is_grad_enabled, set_grad_enabled
    grad_enabled = is_grad_enabled()
    results = [None] * len(modules)

    def worker(i):
        try:
            with set_grad_enabled(grad_enabled):
                inp = inputs[i] if isinstance(inputs[i], (list, tuple)) else (inputs[i],)
                results[i] = modules[i](*inp, **kwargs_tup[i])
        except Exception:
            results[i] = _ReplicaError(i, devices[i], sys.exc_info())

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(modules))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        if isinstance(r, _ReplicaError):
            r.reraise()
    return results


def gather(outputs, target_device, dim=0):
    """The replicas' outputs joined along dim on target_device (differentiably)."""
    first = outputs[0]
    if isinstance(first, Tensor):
        if first.dim() == 0:
            import warnings
            warnings.warn("Was asked to gather along dimension 0, but all input tensors were scalars; "
                          "will instead unsqueeze and return a vector.")
            parts = [o.unsqueeze(0).to(target_device) for o in outputs]
        else:
            parts = [o.to(target_device) for o in outputs]
        from ..functional import cat
        return cat(parts, dim)
    if first is None:
        return None
    if isinstance(first, dict):
        if not all(len(first) == len(d) for d in outputs):
            raise ValueError("All dicts must have the same number of keys")
        return type(first)((k, gather([d[k] for d in outputs], target_device, dim)) for k in first)
    if isinstance(first, (tuple, list)):
        parts = [gather(list(items), target_device, dim) for items in zip(*outputs)]
        if hasattr(first, "_fields"):
            return type(first)(*parts)
        return type(first)(parts)
    return outputs


class DataParallel(Module):
    """torch.nn.DataParallel(module, device_ids=None, output_device=None, dim=0).

    As torch's, the module may still be elsewhere when it is wrapped (`DataParallel(model)` then
    `model.to(device)`): forward checks that its parameters and buffers are on device_ids[0].
    device_ids and output_device hold CUDA indices, as torch's; "cpu" entries stay devices."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        if device_ids is None:
            if not _cuda.is_available():
                self.device_ids = []
                self.output_device = None
                self.src_device_obj = None
                return
            device_ids = list(range(_cuda.device_count()))
        if len(device_ids) == 0:
            raise ValueError("DataParallel: device_ids is empty")
        if output_device is None:
            output_device = device_ids[0]
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _as_device(self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def _check_devices(self):
        src = self.src_device_obj
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t._device is not src:
                raise RuntimeError(f"module must have its parameters and buffers on device {src} "
                                   f"(device_ids[0]) but found one of them on device: {t._device}")

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        self._check_devices()
        devices = [_as_device(d) for d in self.device_ids]
        inputs, kwargs = scatter_kwargs(inputs, kwargs, devices, self.dim)
        if not inputs and not kwargs:
            inputs, kwargs = ((),), ({},)
        if len(devices) == 1:
            return self.module(*inputs[0], **kwargs[0])
        devices = devices[:len(inputs)]
        replicas = replicate(self.module, devices)
        outputs = parallel_apply(replicas, inputs, kwargs, devices)
        return gather(outputs, _as_device(self.output_device), self.dim)

    def extra_repr(self):
        return ""
