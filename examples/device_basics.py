"""Devices, tensors and models on the GPU: the tutorial "how to compute on the GPU", step by step.

Runs everywhere: on a machine without a CUDA GPU the GPU-only steps say that they were
skipped and the rest runs on the CPU.

    python examples/device_basics.py
"""
import minigrad as torch
from minigrad import nn

# ---- 1. devices -----------------------------------------------------------------------------
print("torch.cuda.is_available():", torch.cuda.is_available())
print("torch.cuda.device_count():", torch.cuda.device_count())
has_gpu = torch.cuda.is_available()
if has_gpu:
    print("torch.cuda.current_device():", torch.cuda.current_device())
    print("torch.cuda.get_device_name(0):", torch.cuda.get_device_name(0))
else:
    print("current_device / get_device_name: skipped (no CUDA GPU)")

# ---- 2. tensors on the GPU ------------------------------------------------------------------
# by default a tensor lives in host memory and the CPU computes with it
x = torch.tensor([1, 2, 3])
print("x =", x)

# .cuda(i) copies a tensor to GPU i; .cuda() and .cuda(0) are the same
if has_gpu:
    x = x.cuda(0)
    print("x.cuda(0) =", x)
else:
    print("x.cuda(0): skipped (no CUDA GPU)")
print("x.device =", repr(x.device))

# a tensor can be created on a device, or moved there with .to(device)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
x = torch.tensor([1, 2, 3], device=device)
x = torch.tensor([1, 2, 3]).to(device)
print("torch.tensor([1, 2, 3]).to(device) =", x)

# the result of an operation stays on its inputs' device
y = x ** 2
print("y = x ** 2 =", y)

# tensors on different devices cannot meet in one operation
if has_gpu:
    try:
        z = y + x.cpu()
    except RuntimeError as error:
        print("y + x.cpu() raises RuntimeError:", error)
else:
    print("y + x.cpu() across devices: skipped (no CUDA GPU; every tensor here is on the CPU)")

# ---- 3. models on the GPU -------------------------------------------------------------------
net = nn.Linear(3, 1)
print("parameters of nn.Linear(3, 1) live on", repr(list(net.parameters())[0].device))

# .cuda() moves every parameter of a model to the GPU; .to(device) does it for any device
if has_gpu:
    net.cuda()
else:
    net.to(device)
print("after moving the model:", repr(list(net.parameters())[0].device))

# the input must be on the model's device too
x = torch.rand(2, 3).to(device)
print("net(x) =", net(x))
