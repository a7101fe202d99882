"""minigrad.backends.cuda: torch.backends.cuda's matmul flags, and the float32 matmul precision
(torch.set_float32_matmul_precision / get_float32_matmul_precision).

minigrad's GEMM (kernels/matmul.cu, NumPy on the CPU) always computes in full float32: no
TF32, no reduced-precision reductions. The flags are stored and reported with torch's defaults
and checks, so programs that set them run unchanged, but they change no result.
"""
import warnings

__all__ = ["is_built", "matmul"]

_PRECISIONS = ("highest", "high", "medium")
_state = {"precision": "highest", "fp16": True, "bf16": True}


def is_built():
    """Whether minigrad can drive CUDA at all (its CUDA backend is part of every install)."""
    return True


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["precision"] = precision


def get_float32_matmul_precision():
    return _state["precision"]


def _reduction_flag(name, key):
    def get(self):
        return _state[key]

    def set(self, value):
        flags = value if isinstance(value, (tuple, list)) else (value,)
        if not flags or any(f.__class__ is not bool for f in flags):
            raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
        _state[key] = flags[0]  # (allow reduced precision, allow split-K): only the first is kept
    return property(get, set)


class cuBLASModule:
    """torch.backends.cuda.matmul: allow_tf32 (float32 precision other than 'highest'),
    allow_fp16/bf16_reduced_precision_reduction."""

    @property
    def allow_tf32(self):
        return _state["precision"] != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        if value.__class__ is not bool:
            raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
        _state["precision"] = "high" if value else "highest"

    allow_fp16_reduced_precision_reduction = _reduction_flag("allow_fp16_reduced_precision_reduction", "fp16")
    allow_bf16_reduced_precision_reduction = _reduction_flag("allow_bf16_reduced_precision_reduction", "bf16")

    def __getattr__(self, name):
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if not hasattr(type(self), name):
            raise AttributeError(f"Unknown attribute {name}")
        object.__setattr__(self, name, value)


matmul = cuBLASModule()


# scaled_dot_product_attention's backend switches (torch.backends.cuda.enable_*_sdp, read by
# nn.attention.sdpa_kernel). minigrad has one attention implementation, so they select nothing;
# only turning off every backend that torch could use on a device makes attention fail, as in torch.
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_switch(key):
    def enabled():
        return _sdp[key]

    def enable(enabled):
        if enabled.__class__ is not bool:
            raise RuntimeError(f"set_sdp_use_{key} expects a bool, but got {type(enabled).__name__}")
        _sdp[key] = enabled
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _sdp_switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch("cudnn")
__all__ += ["flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp",
            "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp"]


def _sdp_viable(device_type):
    """Whether torch would find a backend: on the CPU only its math and flash kernels exist."""
    if device_type == "cpu":
        return _sdp["math"] or _sdp["flash"]
    return any(_sdp.values())
