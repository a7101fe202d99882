"""Which ops autocast casts, per device type: torch's Autocast Op Reference for the ops minigrad has.

LOWER: cast eligible inputs to the autocast dtype (float16/bfloat16). FP32: cast them to float32
(whatever dtype= says). FP32_OPT_DTYPE: when the first input is eligible, run the op with
dtype=float32 unless the call passes a dtype, casting no input. PROMOTE: cast them to the widest floating dtype among them.
BANNED: refuse (binary_cross_entropy on CUDA). Eligible inputs are floating-point tensors on the
autocast device, float64 excepted. The CPU lists were checked op by op against torch 2.13's CPU
autocast; the CUDA lists follow torch's registrations (no GPU torch to check them against).
"""

LOWER, FP32, FP32_OPT_DTYPE, PROMOTE, BANNED = "lower_precision_fp", "fp32", "fp32_set_opt_dtype", "promote", "banned"

# CUDA: the ops torch registers for AutocastCUDA (aten/src/ATen/autocast_mode.h's op lists, which the
# docs' Autocast Op Reference summarises), under minigrad's names; "_cudnn_rnn" is nn.RNN/LSTM/GRU
# (torch's cuDNN RNN autocast wrapper), the cells are torch's lstm_cell/gru_cell/rnn_*_cell.
_CUDA_LOWER = ("matmul addbmm addmm addmv addr baddbmm bmm chain_matmul multi_dot einsum vecdot conv1d conv2d conv3d "
               "conv_transpose1d conv_transpose2d conv_transpose3d conv_tbc convolution linear mm mv prelu "
               "scaled_dot_product_attention lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell _cudnn_rnn").split()
_CUDA_FP32 = ("pow rpow rdiv acos asin cosh sinh tan exp expm1 log log10 log1p log2 reciprocal rsqrt erfinv "
              "softmin softplus normalize renorm dist cdist pdist logsumexp frobenius_norm nuclear_norm "
              "cosine_similarity layer_norm group_norm binary_cross_entropy_with_logits cosine_embedding_loss "
              "cross_entropy hinge_embedding_loss kl_div l1_loss huber_loss margin_ranking_loss mse_loss "
              "multilabel_margin_loss multi_margin_loss nll_loss nll_loss2d poisson_nll_loss smooth_l1_loss "
              "soft_margin_loss triplet_margin_loss upsample_nearest1d upsample_nearest2d upsample_nearest3d "
              "upsample_nearest_exact1d upsample_nearest_exact2d upsample_nearest_exact3d upsample_linear1d "
              "upsample_bilinear2d upsample_bilinear2d_aa upsample_trilinear3d upsample_bicubic2d "
              "upsample_bicubic2d_aa").split()
# fp32_set_opt_dtype: when the first input is eligible, the op runs with dtype=float32 unless the call
# gave a dtype (the inputs are not cast: the op converts as it computes, as torch passes dtype in)
_CUDA_FP32_OPT = "sum prod cumsum cumprod softmax log_softmax vector_norm matrix_norm norm".split()
_CUDA_PROMOTE = ("addcdiv addcmul atan2 bilinear cross dot vdot grid_sample index_put scatter_add tensordot "
                 "cat stack index_copy").split()

# CPU: torch 2.13's AutocastCPU registrations for the ops minigrad has, each checked against torch's
# CPU autocast (float16 and bfloat16); "mkldnn_rnn_layer" is nn.LSTM (torch's oneDNN LSTM layer:
# nn.GRU and nn.RNN are not registered, their inner linear layers are)
_CPU_LOWER = ("matmul mm bmm addmm addbmm baddbmm linear conv1d conv2d conv3d conv_transpose1d "
              "conv_transpose2d conv_transpose3d conv_tbc convolution prelu scaled_dot_product_attention vecdot "
              "mkldnn_rnn_layer").split()
_CPU_FP32 = ("prod trace inverse linalg_inv linalg_inv_ex pinverse cholesky linalg_cholesky linalg_cholesky_ex "
             "cholesky_inverse cholesky_solve lu_solve linalg_solve orgqr householder_product ormqr geqrf qr "
             "linalg_qr svd linalg_svd svdvals eig eigvals eigh eigvalsh lu triangular_solve matrix_rank cond "
             "lstsq tensorinv tensorsolve cdist quantile nanquantile binary_cross_entropy "
             "binary_cross_entropy_with_logits mse_loss l1_loss smooth_l1_loss huber_loss nll_loss nll_loss2d "
             "cross_entropy kl_div margin_ranking_loss soft_margin_loss triplet_margin_loss multi_margin_loss "
             "multilabel_margin_loss hinge_embedding_loss poisson_nll_loss cosine_embedding_loss ctc_loss "
             "grid_sample avg_pool3d max_pool3d adaptive_avg_pool3d adaptive_max_pool3d max_unpool2d max_unpool3d "
             "fractional_max_pool2d fractional_max_pool3d reflection_pad1d reflection_pad2d replication_pad1d "
             "replication_pad2d replication_pad3d polar view_as_complex stft fake_quantize_per_tensor_affine").split()
_CPU_PROMOTE = "cat stack index_copy".split()

_CUDA = dict.fromkeys(_CUDA_LOWER, LOWER)
_CUDA.update(dict.fromkeys(_CUDA_FP32, FP32))
_CUDA.update(dict.fromkeys(_CUDA_FP32_OPT, FP32_OPT_DTYPE))
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
