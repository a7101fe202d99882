"""The tutorial's Lua Torch (nn + cunn) training loop, translated line by line to minigrad.

The Lua program builds nn.Sequential 10-5-1 with a ReLU, moves it to the GPU with :cuda(),
and for 1000 iterations feeds one random input with one random target through an
MSECriterion, then zeroes the gradients, back-propagates, and updates the parameters by
hand with a learning rate of 0.01. The targets are noise, so there is nothing to learn
beyond their mean: the running loss settles near the targets' variance (about 1).

    python examples/lua_torch_mlp.py                    # 1000 iterations, as in the Lua code
    python examples/lua_torch_mlp.py --iterations 200

The mapping, Lua Torch -> minigrad (the same as PyTorch):

    require 'nn'; require 'cunn'           import minigrad as torch; import minigrad.nn as nn
    model = nn.Sequential()                model = nn.Sequential(nn.Linear(10, 5), nn.ReLU(),
    model:add(nn.Linear(10, 5)) ...                              nn.Linear(5, 1))
    model:cuda()                           model.to(device)   (CUDA when available)
    nn.MSECriterion():cuda()               nn.MSELoss()       (both average over elements)
    torch.randn(10):cuda()                 torch.randn(10, device=device)
    output = model:forward(input)          output = model(input)
    loss = criterion:forward(output, t)    loss = criterion(output, target)
    model:zeroGradParameters()             model.zero_grad()
    gradOutput = criterion:backward(...)   loss.backward()    (autograd does both backward
    model:backward(input, gradOutput)                          calls through the graph)
    model:updateParameters(0.01)           with torch.no_grad():
                                               for p in model.parameters(): p -= 0.01 * p.grad
"""
import argparse

import minigrad as torch
import minigrad.nn as nn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--iterations", type=int, default=1000, help="training iterations (default: 1000)")
parser.add_argument("--lr", type=float, default=0.01, help="learning rate of updateParameters (default: 0.01)")
parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
args = parser.parse_args()
torch.manual_seed(args.seed)

# model:cuda() sends the model to the GPU; here the device is CUDA only when there is one
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# define the network: model = nn.Sequential(); model:add(...) three times
model = nn.Sequential(
    nn.Linear(10, 5),
    nn.ReLU(),
    nn.Linear(5, 1),
)
model.to(device)

# define the loss: criterion = nn.MSECriterion():cuda()
criterion = nn.MSELoss()

initial = [p.detach().clone() for p in model.parameters()]
running, log_every = 0.0, max(1, args.iterations // 10)
for i in range(1, args.iterations + 1):  # for i=1,1000 do
    # local input = torch.randn(10):cuda(); local target = torch.randn(1):cuda()
    input = torch.randn(10, device=device)
    target = torch.randn(1, device=device)

    # local output = model:forward(input); local loss = criterion:forward(output, target)
    output = model(input)
    loss = criterion(output, target)

    # model:zeroGradParameters()
    model.zero_grad()

    # gradOutput = criterion:backward(output, target); model:backward(input, gradOutput)
    # In Lua Torch each module's backward is called by hand, outermost first; here the
    # graph recorded during the forward pass does the same walk from the loss.
    loss.backward()

    # model:updateParameters(0.01): param = param - 0.01 * gradParam, for every parameter.
    # no_grad keeps the update itself out of the graph, and -= changes the parameter in
    # place, so the model keeps the same tensors.
    with torch.no_grad():
        for p in model.parameters():
            p -= args.lr * p.grad

    running += loss.item()
    if i % log_every == 0:
        print("Iteration [{}/{}], mean loss of the last {}: {:.4f}".format(
            i, args.iterations, log_every, running / log_every))
        running = 0.0

moved = sum((p.detach() - p0).abs().sum().item() for p, p0 in zip(model.parameters(), initial))
print("Total absolute change of the parameters: {:.4f}".format(moved))
