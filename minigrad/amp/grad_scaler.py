"""torch.amp.GradScaler: dynamic loss scaling for float16 training.

The scaler keeps two small tensors on the device of the first output it scales: the scale (float32)
and the count of clean steps since the scale last changed (int32). Each optimizer goes through
three stages between two update() calls:

    fresh --unscale_()--> unscaled --step()--> stepped        (step() unscales a fresh one first)

unscale_() multiplies the optimizer's gradients by 1/scale and keeps, per device, a float32 flag
that is 1.0 when one of them held an inf or NaN; step() calls optimizer.step() only when no flag
is set; update() halves the scale (backoff_factor) after a flagged iteration, multiplies it by
growth_factor after growth_interval clean ones, and forgets the stages. The checks and the
unscaling are ordinary tensor ops (isfinite, all, mul_), so they run in the backends' kernels.
"""
import enum
import warnings

__all__ = ["OptState", "GradScaler"]


class OptState(enum.Enum):
    """The stages an optimizer goes through between two update() calls (torch's names)."""
    READY = 0
    UNSCALED = 1
    STEPPED = 2


_NO_SCALE_HINT = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
_BAD_NEW_SCALE = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                  "torch.FloatTensor with requires_grad=False.")


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        if enabled and device == "cuda":
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled
        if not enabled:
            return
        if not growth_factor > 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if not backoff_factor < 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._growth_factor, self._backoff_factor, self._growth_interval = growth_factor, backoff_factor, growth_interval
        # the values the two tensors start from when the first output is scaled
        self._start_scale, self._start_clean = init_scale, 0
        self._scale = self._clean = None
        self._stages = {}   # id(optimizer) -> OptState (absent: READY)
        self._flags = {}    # id(optimizer) -> {device: float32 0-d tensor, 1.0 if an inf/NaN was seen}

    # ---- the two tensors ---------------------------------------------------------------------
    def _tensors_on(self, device):
        """The scale and clean-step count, made on `device` the first time."""
        if self._scale is None:
            from .. import creation, dtypes
            self._scale = creation.full((), self._start_scale, dtype=dtypes.float32, device=device)
            self._clean = creation.full((), self._start_clean, dtype=dtypes.int32, device=device)
        return self._scale

    def _require_tensors(self, what):
        if self._scale is None:
            raise AssertionError(f"Attempted {what} but _scale is None.  " + _NO_SCALE_HINT)
        if self._clean is None:
            raise AssertionError(f"Attempted {what} but _growth_tracker is None.  " + _NO_SCALE_HINT)

    # ---- scaling the loss --------------------------------------------------------------------
    def scale(self, outputs):
        """outputs (a tensor, or nested lists/tuples/iterables of tensors) times the current scale."""
        from ..tensor import Tensor
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._tensors_on(outputs.device).to(device=outputs.device)
        copies = {}  # one copy of the scale per device the outputs live on

        def times_scale(x):
            if isinstance(x, Tensor):
                if x.device not in copies:
                    copies[x.device] = self._tensors_on(x.device).to(device=x.device, copy=True)
                return x * copies[x.device]
            if isinstance(x, (list, tuple)):
                return type(x)(times_scale(v) for v in x)
            try:
                items = iter(x)
            except TypeError:
                raise ValueError("outputs must be a Tensor or an iterable of Tensors") from None
            return map(times_scale, items)
        return times_scale(outputs)

    # ---- unscaling the gradients -------------------------------------------------------------
    def unscale_(self, optimizer):
        """Divide optimizer's gradients by the scale (at most once per iteration), noting inf/NaNs."""
        if not self._enabled:
            return
        self._require_tensors("unscale_")
        stage = self._stages.get(id(optimizer), OptState.READY)
        if stage is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if stage is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        self._flags[id(optimizer)] = self._unscale_all(optimizer)
        self._stages[id(optimizer)] = OptState.UNSCALED

    def _unscale_all(self, optimizer):
        from .. import autograd, creation, dtypes
        from ..tensor import Tensor
        by_device = {}
        for group in optimizer.param_groups:
            for p in group["params"]:
                if not isinstance(p, Tensor):
                    raise AssertionError(f"expected param to be torch.Tensor, got {type(p).__name__}")
                if p.grad is None:
                    continue
                if p.grad.dtype is dtypes.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                by_device.setdefault(p.grad.device, []).append(p.grad)
        # 1 / scale in double, then float32, as torch computes it
        reciprocal = self._scale.double().reciprocal().float()
        flags = {}
        with autograd.no_grad():
            for device, grads in by_device.items():
                factor = reciprocal.to(device)
                clean = all(bool(g.isfinite().all().item()) for g in grads)
                for g in grads:
                    g.mul_(factor.to(g.dtype))
                flags[device] = creation.full((), 0.0 if clean else 1.0, dtype=dtypes.float32, device=device)
        return flags

    def step(self, optimizer, *args, **kwargs):
        """unscale_ (unless done already), then optimizer.step(*args, **kwargs) unless a gradient
        was inf/NaN; returns what optimizer.step returned, or None when it was skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._require_tensors("step")
        stage = self._stages.get(id(optimizer), OptState.READY)
        if stage is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if stage is OptState.READY:
            self.unscale_(optimizer)
        flags = self._flags.get(id(optimizer), {})
        if not flags:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        skipped = any(f.item() for f in flags.values())
        self._stages[id(optimizer)] = OptState.STEPPED
        return None if skipped else optimizer.step(*args, **kwargs)

    # ---- the scale's schedule ----------------------------------------------------------------
    def update(self, new_scale=None):
        """Set the scale to new_scale, or else back it off after an inf/NaN and grow it after
        growth_interval clean iterations; then start a new iteration."""
        if not self._enabled:
            return
        self._require_tensors("update")
        if new_scale is None:
            self._schedule()
        else:
            self._set_scale(new_scale)
        self._stages, self._flags = {}, {}

    def _schedule(self):
        seen = [f for flags in self._flags.values() for f in flags.values()]
        if not seen:
            raise AssertionError("No inf checks were recorded prior to update.")
        if any(f.item() for f in seen):
            self._scale.mul_(self._backoff_factor)
            self._clean.fill_(0)
            return
        clean = int(self._clean.item()) + 1
        if clean == self._growth_interval:
            grown = self._scale * self._growth_factor
            if grown.isfinite().item():  # a scale that would overflow stays where it is
                self._scale.copy_(grown)
            clean = 0
        self._clean.fill_(clean)

    def _set_scale(self, new_scale):
        from ..tensor import Tensor
        if isinstance(new_scale, float):
            self._scale.fill_(new_scale)
            return
        if (not isinstance(new_scale, Tensor) or new_scale.device.type != self._device or new_scale.numel() != 1
                or new_scale.requires_grad):
            raise AssertionError(_BAD_NEW_SCALE)
        self._scale.copy_(new_scale.reshape(()))

    # ---- settings ----------------------------------------------------------------------------
    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._start_scale if self._scale is None else self._scale.item()

    def _clean_steps(self):
        if not self._enabled:
            return 0
        return self._start_clean if self._clean is None else int(self._clean.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def is_enabled(self):
        return self._enabled

    # ---- checkpoints -------------------------------------------------------------------------
    def state_dict(self):
        """torch's keys: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker."""
        if not self._enabled:
            return {}
        return dict(scale=self.get_scale(), growth_factor=self._growth_factor, backoff_factor=self._backoff_factor,
                    growth_interval=self._growth_interval, _growth_tracker=self._clean_steps())

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._start_scale, self._start_clean = state_dict["scale"], state_dict["_growth_tracker"]
        if self._scale is not None:
            self._scale.fill_(self._start_scale)
            self._clean.fill_(self._start_clean)

    def __getstate__(self):
        """Picklable between iterations: the tensors go as numbers, made again on first use."""
        state = dict(self.__dict__)
        if self._enabled:
            if self._stages or self._flags:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state.update(_start_scale=self.get_scale(), _start_clean=self._clean_steps(), _scale=None, _clean=None)
        return state
