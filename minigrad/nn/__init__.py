"""minigrad.nn: modules, layers, losses, initializers and DataParallel, as torch.nn."""
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .modules import *  # noqa: F401,F403
from . import functional, init, parallel, utils  # noqa: F401
from .parallel import DataParallel
from .modules.legacy import NLLLoss2d, Container, CrossMapLRN2d  # noqa: E402,F401  (deprecated torch.nn names)
from . import grad  # noqa: E402,F401  (conv gradients, also nn.functional.grad)
from . import attention  # noqa: E402,F401  (SDPBackend, sdpa_kernel)
