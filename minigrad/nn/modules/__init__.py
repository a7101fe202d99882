"""The Module classes of minigrad.nn."""
from ..parameter import Buffer
from .module import Module
from .linear import Identity, Linear
from .activation import ReLU, LeakyReLU, ELU, GELU, Softplus, Softsign, Sigmoid, Tanh, Softmax, LogSoftmax
from .misc import Flatten, Dropout
from .normalization import LayerNorm, BatchNorm1d, BatchNorm2d
from .container import Sequential, ModuleList, ModuleDict
from .loss import (MSELoss, L1Loss, SmoothL1Loss, HuberLoss, CrossEntropyLoss, NLLLoss, BCELoss,
                   BCEWithLogitsLoss)

__all__ = ["Buffer", "Module", "Identity", "Linear", "ReLU", "LeakyReLU", "ELU", "GELU", "Softplus",
           "Softsign", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Flatten", "Dropout", "Sequential",
           "ModuleList", "ModuleDict", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss",
           "NLLLoss", "BCELoss", "BCEWithLogitsLoss"]

from .activation import (SiLU, Mish, Hardtanh, ReLU6, LogSigmoid, Softmin, Hardsigmoid, Hardswish,  # noqa: E402
                         PReLU, CELU, SELU, Threshold, Tanhshrink, Softshrink, Hardshrink)
from .misc import Unflatten  # noqa: E402
from .sparse import Embedding  # noqa: E402
from .container import ParameterList, ParameterDict  # noqa: E402
__all__ += ["SiLU", "Mish", "Hardtanh", "ReLU6", "LogSigmoid", "Softmin", "Hardsigmoid", "Hardswish", "PReLU",
            "CELU", "SELU", "Threshold", "Tanhshrink", "Softshrink", "Hardshrink", "Unflatten", "Embedding",
            "ParameterList", "ParameterDict"]
__all__ += ["LayerNorm", "BatchNorm1d", "BatchNorm2d"]
from .conv import Conv1d, Conv2d  # noqa: E402
from .pooling import (MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,  # noqa: E402
                      Unfold, Fold)
__all__ += ["Conv1d", "Conv2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
            "AdaptiveAvgPool2d", "Unfold", "Fold"]
from .conv import ConvTranspose1d, ConvTranspose2d  # noqa: E402
from .pooling import AdaptiveMaxPool1d, AdaptiveMaxPool2d  # noqa: E402
__all__ += ["ConvTranspose1d", "ConvTranspose2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"]
from .loss import (KLDivLoss, CosineEmbeddingLoss, MarginRankingLoss, HingeEmbeddingLoss, SoftMarginLoss,  # noqa: E402
                   MultiLabelSoftMarginLoss, MultiLabelMarginLoss, MultiMarginLoss, PoissonNLLLoss, GaussianNLLLoss,
                   TripletMarginLoss)
from .distance import PairwiseDistance, CosineSimilarity  # noqa: E402
from .padding import (ZeroPad1d, ZeroPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d,  # noqa: E402
                      ReplicationPad1d, ReplicationPad2d, CircularPad1d, CircularPad2d)
__all__ += ["KLDivLoss", "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
            "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
            "TripletMarginLoss", "PairwiseDistance", "CosineSimilarity", "ZeroPad1d", "ZeroPad2d", "ConstantPad1d",
            "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
            "CircularPad1d", "CircularPad2d"]
# 3-d convolution, pooling and padding (minigrad/ops/conv.py, padding.py)
from .conv import Conv3d, ConvTranspose3d  # noqa: E402
from .pooling import (MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, LPPool1d, LPPool2d,  # noqa: E402
                      LPPool3d)
from .padding import (ZeroPad3d, ConstantPad3d, ReflectionPad3d, ReplicationPad3d, CircularPad3d)  # noqa: E402
__all__ += ["Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
            "LPPool1d", "LPPool2d", "LPPool3d", "ZeroPad3d", "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d",
            "CircularPad3d"]
from .pooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402
__all__ += ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: E402
__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
from .attention import MultiheadAttention  # noqa: E402
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer,  # noqa: E402
                          TransformerDecoderLayer)
__all__ += ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
            "TransformerDecoderLayer"]
from .upsampling import (Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle,  # noqa: E402
                         PixelUnshuffle, ChannelShuffle)
from .normalization import (BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,  # noqa: E402
                            LocalResponseNorm)
from .activation import GLU  # noqa: E402
from .linear import Bilinear  # noqa: E402
__all__ += ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
            "ChannelShuffle", "BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
            "LocalResponseNorm", "GLU", "Bilinear"]
from .dropout import Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout  # noqa: E402
from .activation import RReLU, Softmax2d  # noqa: E402
from .normalization import RMSNorm  # noqa: E402
from .loss import TripletMarginWithDistanceLoss  # noqa: E402
__all__ += ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "RReLU", "Softmax2d",
            "RMSNorm", "TripletMarginWithDistanceLoss"]
from .sparse import EmbeddingBag  # noqa: E402
__all__ += ["EmbeddingBag"]
from .lazy import (LazyLinear, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,  # noqa: E402
                   LazyConvTranspose2d, LazyConvTranspose3d, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d,
                   LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d)
__all__ += ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
            "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
            "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
from .loss import CTCLoss  # noqa: E402
__all__ += ["CTCLoss"]
# fractional max pooling and the adaptive softmax (minigrad/ops/fractional_pool.py, adaptive.py)
from .pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d", "AdaptiveLogSoftmaxWithLoss"]
# a linear layer fused with its cross-entropy loss (loss.py, linear_cross_entropy_options.py)
from .loss import LinearCrossEntropyLoss  # noqa: E402
from .linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: E402
__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
from .normalization import SyncBatchNorm  # noqa: E402
__all__ += ["SyncBatchNorm"]
