"""Which ops autocast casts, per device type: torch's Autocast Op Reference for the ops minigrad has.

LOWER: cast eligible inputs to the autocast dtype (float16/bfloat16). FP32: cast them to float32
(unless the call passes dtype=). PROMOTE: cast them to the widest floating dtype among them.
BANNED: refuse (binary_cross_entropy on CUDA). Eligible inputs are floating-point tensors on the
autocast device, float64 excepted. The CPU lists were checked op by op against torch 2.13's CPU
autocast; the CUDA lists follow torch's documentation (no GPU torch to check them against).
"""

LOWER, FP32, PROMOTE, BANNED = "lower_precision_fp", "fp32", "promote", "banned"

_CUDA_LOWER = ("matmul addbmm addmm addmv addr baddbmm bmm chain_matmul multi_dot conv1d conv2d conv3d "
               "conv_transpose1d conv_transpose2d conv_transpose3d linear mm mv prelu "
               "scaled_dot_product_attention").split()  # the last: registered by torch, not in its docs' list
_CUDA_FP32 = ("pow rpow rdiv acos asin cosh sinh tan exp expm1 log log10 log1p log2 reciprocal rsqrt erfinv "
              "sum prod cumsum cumprod softmax log_softmax softmin softplus norm normalize renorm dist cdist pdist "
              "cosine_similarity layer_norm group_norm binary_cross_entropy_with_logits cosine_embedding_loss "
              "cross_entropy hinge_embedding_loss kl_div l1_loss margin_ranking_loss mse_loss "
              "multilabel_margin_loss multi_margin_loss nll_loss poisson_nll_loss smooth_l1_loss "
              "soft_margin_loss triplet_margin_loss").split()
_CUDA_PROMOTE = ("addcdiv addcmul atan2 bilinear cross dot grid_sample index_put scatter_add tensordot "
                 "cat stack index_copy").split()

_CPU_LOWER = ("matmul mm bmm addmm addbmm baddbmm linear conv1d conv2d conv3d conv_transpose1d "
              "conv_transpose2d conv_transpose3d prelu scaled_dot_product_attention vecdot").split()
_CPU_FP32 = ("prod trace inverse pinverse cholesky cholesky_inverse cholesky_solve lu_solve orgqr ormqr geqrf "
             "qr svd cdist quantile nanquantile binary_cross_entropy binary_cross_entropy_with_logits mse_loss "
             "l1_loss smooth_l1_loss huber_loss nll_loss cross_entropy kl_div margin_ranking_loss "
             "soft_margin_loss triplet_margin_loss multi_margin_loss multilabel_margin_loss "
             "hinge_embedding_loss poisson_nll_loss cosine_embedding_loss ctc_loss grid_sample avg_pool3d "
             "max_pool3d adaptive_avg_pool3d adaptive_max_pool3d max_unpool2d max_unpool3d "
             "fractional_max_pool2d fractional_max_pool3d").split()
_CPU_PROMOTE = "cat stack index_copy".split()

_CUDA = dict.fromkeys(_CUDA_LOWER, LOWER)
_CUDA.update(dict.fromkeys(_CUDA_FP32, FP32))
_CUDA.update(dict.fromkeys(_CUDA_PROMOTE, PROMOTE))
_CUDA["binary_cross_entropy"] = BANNED
_CPU = dict.fromkeys(_CPU_LOWER, LOWER)
_CPU.update(dict.fromkeys(_CPU_FP32, FP32))
_CPU.update(dict.fromkeys(_CPU_PROMOTE, PROMOTE))

POLICIES = {"cuda": _CUDA, "cpu": _CPU}


def policy_of(device_type, op):
    table = POLICIES.get(device_type)
    return None if table is None else table.get(op)


def ops_with(device_type, policy):
    """The op names with this policy on this device type (sorted), for the README and tests."""
    return sorted(k for k, v in POLICIES[device_type].items() if v == policy)
