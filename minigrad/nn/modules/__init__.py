"""The Module classes of minigrad.nn."""
from ..parameter import Buffer
from .module import Module
from .linear import Identity, Linear
from .activation import ReLU, LeakyReLU, ELU, GELU, Softplus, Softsign, Sigmoid, Tanh, Softmax, LogSoftmax
from .misc import Flatten, Dropout
from .container import Sequential, ModuleList, ModuleDict
from .loss import (MSELoss, L1Loss, SmoothL1Loss, HuberLoss, CrossEntropyLoss, NLLLoss, BCELoss,
                   BCEWithLogitsLoss)

__all__ = ["Buffer", "Module", "Identity", "Linear", "ReLU", "LeakyReLU", "ELU", "GELU", "Softplus",
           "Softsign", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Flatten", "Dropout", "Sequential",
           "ModuleList", "ModuleDict", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss",
           "NLLLoss", "BCELoss", "BCEWithLogitsLoss"]
