"""minigrad: a teaching-size deep-learning engine with PyTorch's API (`import minigrad as torch`)."""
from . import dtypes as _dtypes
from .dtypes import (dtype, float32, float64, int64, int32, get_default_dtype, set_default_dtype)
from .dtypes import finfo, iinfo, can_cast  # noqa: F401
from .devices import device
from .tensor import Tensor, Size
from . import autograd, cuda
from .autograd import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                       is_inference_mode_enabled)
from .autograd.anomaly_mode import is_anomaly_enabled, is_anomaly_check_nan_enabled  # noqa: E402
from .creation import (tensor, as_tensor, from_numpy, zeros, ones, empty, full, arange, linspace, eye,
                       rand, randn, randint, zeros_like, ones_like, empty_like, full_like, rand_like,
                       randn_like, randint_like, manual_seed, seed, Generator, default_generator,
                       randperm)
from .creation import asarray, frombuffer, set_default_device, get_default_device  # noqa: F401
from .functional import (add, sub, mul, div, pow, neg, abs, exp, log, sqrt, sin, cos, tanh, sigmoid, relu,
                         reciprocal, log1p, expm1, erf, clamp, clip, maximum, minimum, where, lt, le, gt, ge,
                         eq, ne, sum, prod, mean, max, min, amax, amin, argmax, argmin, var, std, softmax,
                         log_softmax, matmul, mm, bmm, mv, tile,
                         reshape, flatten, squeeze, unsqueeze, transpose, t, permute, clone, cat, concat,
                         stack, split, chunk, numel, is_tensor, is_floating_point, result_type,
                         promote_types, square, norm, dot, equal, allclose, isclose, all, any, nonzero,
                         masked_fill, sign, floor, ceil, trunc, fix, round, frac, rsub)
from .functional import (isnan, isinf, isfinite, isposinf, isneginf, nan_to_num, logsumexp, tril, triu,  # noqa: F401
                         diag, trace, flip, narrow, unbind, movedim, moveaxis, index_select, masked_select,
                         outer, ger, gather, scatter, scatter_add, take_along_dim, lerp, clamp_min, clamp_max,
                         logical_and, logical_or, logical_xor, logical_not, count_nonzero, var_mean, std_mean)
from .functional import sort, argsort, msort, topk, kthvalue  # noqa: F401
from .functional import cumsum, cumprod, cummax, cummin  # noqa: F401
from .functional import divide, true_divide, floor_divide, remainder, fmod  # noqa: F401
from .ops.einsum import einsum  # noqa: F401
from .ops.unique import unique, unique_consecutive, bincount  # noqa: F401
from .ops.search import searchsorted, bucketize  # noqa: F401
from .ops.math_more import FUNCTIONS as _MATH_MORE  # tan ... rsqrt, atan2 ... xlogy, roll, addmm, median, ...
globals().update(_MATH_MORE)
from .ops.tensor_extras import FUNCTIONS as _EXTRAS  # hstack, tensor_split, index_add, cov, histc, ...
globals().update(_EXTRAS)
from .ops.special import FUNCTIONS as _SPECIAL  # lgamma, polygamma, igamma, frexp, bitwise_and, gcd, ...
globals().update(_SPECIAL)
concatenate = concat
from . import linalg  # noqa: E402,F401
from . import special  # noqa: E402,F401  (torch.special)
from .ops.linalg_eig import FUNCTIONS as _LINALG_EIG  # torch.svd, torch.qr, torch.pinverse
globals().update(_LINALG_EIG)
from .ops.linalg_factor import FUNCTIONS as _LINALG_FACTOR  # inverse, det, logdet, slogdet, cholesky_solve, ...
globals().update(_LINALG_FACTOR)
from .ops.linalg_more import FUNCTIONS as _LINALG_MORE  # matrix_exp, lu_unpack, geqrf, orgqr, ormqr
globals().update(_LINALG_MORE)
from .ops.loss_more import cosine_similarity, pairwise_distance, cdist, dist  # noqa: F401
from .ops.random_ops import FUNCTIONS as _RANDOM  # bernoulli, multinomial, normal, poisson
globals().update(_RANDOM)
from .ops.strided import as_strided, diagonal  # noqa: F401
from .ops.shape import adjoint  # noqa: F401
from .ops.scatter_reduce import scatter_reduce, index_reduce  # noqa: F401
from ._tensor_str import set_printoptions, get_printoptions
from . import viz

bool = _dtypes.bool_
float = float32
double = float64
long = int64
int = int32
from .dtypes import float16, int16, int8, uint8, bfloat16  # noqa: E402,F401
half = float16
short = int16

from .version import __version__  # noqa: E402  (minigrad.version is torch.version)
from . import version  # noqa: E402,F401

# the layers above the tensor (they import the names above)
from .serialization import save, load  # noqa: E402
from . import nn, optim, utils  # noqa: E402,F401  (torch.nn, torch.optim, torch.utils.data)
from . import distributions  # noqa: E402,F401  (torch.distributions)
from . import random  # noqa: E402  (torch.random: RNG state)
from .random import get_rng_state, set_rng_state, initial_seed  # noqa: E402,F401
from . import func  # noqa: E402,F401  (torch.func)
from .deterministic import (use_deterministic_algorithms, are_deterministic_algorithms_enabled,  # noqa: E402,F401
                            is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                            get_deterministic_debug_mode)
from .backends import cudnn as _cudnn, cuda as _cuda_flags, mps as _mps  # noqa: E402,F401  (torch.backends.*)
from .backends.cuda import set_float32_matmul_precision, get_float32_matmul_precision  # noqa: E402,F401
from . import compiler  # noqa: E402,F401  (torch.compiler)
from .compiler import compile  # noqa: E402,F401  (runs eagerly: see minigrad/compiler.py)
from .func import vmap  # noqa: E402,F401
from .ops.nn_extras import TORCH as _NN_SPELLINGS  # torch.conv2d, torch.dropout(x, p, train), ...
globals().update(_NN_SPELLINGS)
from .ops import tensor_more as _tensor_more  # noqa: E402  fliplr, trapezoid, histogram, windows, abs_, ...
_tensor_more.export(globals())
from .streams import Stream, Event  # noqa: E402,F401  (torch.Stream, torch.Event; Tensor.record_stream)
from .cuda import OutOfMemoryError  # noqa: E402,F401  (torch.OutOfMemoryError)
from . import accelerator  # noqa: E402,F401  (torch.accelerator)
from . import amp, cpu  # noqa: E402,F401  (torch.amp, torch.cpu: autocast and GradScaler)
from .amp.autocast_mode import (autocast, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype,  # noqa: E402,F401
                                set_autocast_dtype, get_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                set_autocast_cpu_dtype, set_autocast_gpu_dtype, is_autocast_cpu_enabled,
                                set_autocast_cpu_enabled, is_autocast_cache_enabled, set_autocast_cache_enabled,
                                clear_autocast_cache, autocast_increment_nesting, autocast_decrement_nesting)
from .amp.grad_scaler import GradScaler  # noqa: E402,F401  (torch.GradScaler)
cuda.amp = amp.cuda_amp  # torch.cuda.amp (deprecated spellings)
import sys as _sys  # noqa: E402
_sys.modules[__name__ + ".cuda.amp"] = amp.cuda_amp
del _sys
from .memory_formats import (memory_format, contiguous_format, channels_last, channels_last_3d,  # noqa: E402,F401
                             preserve_format, layout, strided)
from .creation import empty_strided, empty_permuted  # noqa: E402,F401
from . import jit  # noqa: E402,F401  (torch.jit, run eagerly: see minigrad/jit.py)
from .ops.view_copy import FUNCTIONS as _VIEW_COPY  # alias_copy, permute_copy, split_copy, view_copy, ...
globals().update(_VIEW_COPY)
from .ops.legacy_linalg import FUNCTIONS as _LEGACY_LINALG  # cholesky, lu, lu_solve, svd_lowrank, ...
globals().update(_LEGACY_LINALG)
from .ops.top_level import FUNCTIONS as _TOP_LEVEL  # swapdims, nonzero_static, binomial, fork, wait, ...
globals().update(_TOP_LEVEL)
from .ops import top_level as _top_level  # noqa: E402
_top_level.attach_methods(Tensor)
# legacy and testing APIs: the legacy tensor types (FloatTensor, cuda.LongTensor, ...), storages,
# set_default_tensor_type, torch.testing, and torch's constants (minigrad/legacy.py, storage.py)
from . import legacy as _legacy, storage as _storage  # noqa: E402
_legacy.install(globals(), cuda)
_storage.install()
from .legacy import set_default_tensor_type  # noqa: E402,F401
from .storage import UntypedStorage, TypedStorage, is_storage  # noqa: E402,F401
from . import testing  # noqa: E402,F401
import math as _math  # noqa: E402
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None
del _math
# DLPack exchange (torch.from_dlpack, torch.utils.dlpack, Tensor.__dlpack__) and more small
# top-level functions and Tensor methods (minigrad/utils/dlpack.py, minigrad/ops/top_level_more.py)
from .utils.dlpack import from_dlpack  # noqa: E402,F401
from .ops.top_level_more import FUNCTIONS as _TOP_LEVEL_MORE  # is_complex, get_device_module, ...
globals().update(_TOP_LEVEL_MORE)
from .ops import top_level_more as _top_level_more  # noqa: E402
_top_level_more.attach_methods(Tensor)
