"""A short tour of minigrad's tensor API, written as PyTorch code.

    python examples/tensor_tour.py
"""
import numpy as np

import minigrad as torch

torch.manual_seed(0)

# ---- creation and dtypes -----------------------------------------------------------
a = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
print("a", a, a.shape, a.dtype)
print("arange of ints is int64:", torch.arange(4).dtype, "| of floats:", torch.arange(0., 1., .25))
print("zeros(2, 3) and zeros((2, 3)) agree:", torch.zeros(2, 3).shape == torch.zeros((2, 3)).shape)
print("eye", torch.eye(2), "randn", torch.randn(2, 2).shape)
# torch's promotion: a float32 tensor times a Python float stays float32, an int tensor gets the default float
print("promotion:", (a * 2.5).dtype, (torch.tensor([1, 2]) * 0.5).dtype, (a * torch.ones(3, dtype=torch.float64)).dtype)

# from_numpy shares memory both ways
n = np.zeros(3)
t = torch.from_numpy(n)
t += 1
n[0] = 7
print("from_numpy:", n, t)

# ---- ops, broadcasting, reductions ---------------------------------------------------
b = torch.tensor([10., 20., 30.])
print("a + b broadcasts:", a + b)
print("matmul (2x3 @ 3):", a @ b)
values, indices = a.max(dim=1)
print("max over dim 1:", values, indices)
print("mean(dim=0, keepdim=True):", a.mean(dim=0, keepdim=True))
print("softmax:", torch.softmax(b, dim=0))
print("comparisons give bool:", a > 2)

# ---- shapes and indexing ----------------------------------------------------------------
print("reshape/transpose:", a.reshape(3, 2).shape, a.T.shape, a.unsqueeze(0).shape)
print("a[:, ::2]", a[:, ::2], "a[a > 3]", a[a > 3], "a[[1, 0]]", a[[1, 0]])
print("cat/stack:", torch.cat([a, a]).shape, torch.stack([a, a]).shape, [c.shape for c in a.chunk(3, dim=1)])
c = a.clone()
c[0] = 0.  # __setitem__ writes through
print("after c[0] = 0:", c)

# ---- autograd ------------------------------------------------------------------------
w = torch.randn(3, 2, requires_grad=True)
x = torch.randn(4, 3)
loss = ((x @ w).relu() ** 2).mean()
loss.backward()
print("loss", loss, "w.grad shape", w.grad.shape)
with torch.no_grad():
    w -= 0.1 * w.grad  # a manual SGD step, not recorded
    w.grad = None
print("after the step, w is still a leaf:", w.is_leaf, w.requires_grad)

# second derivative: d2/dx2 of x^3 at 2 is 12
s = torch.tensor(2., requires_grad=True)
(ds,) = torch.autograd.grad(s ** 3, s, create_graph=True)
(d2s,) = torch.autograd.grad(ds, s)
print("d/dx x^3 =", ds, " d2/dx2 x^3 =", d2s)

# ---- devices -----------------------------------------------------------------------------
print("CUDA available:", torch.cuda.is_available(), "| tensors live on", a.device)
