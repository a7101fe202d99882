"""Linear regression on the GPU when there is one: the first program of the PyTorch + CUDA tutorial.

A single nn.Linear(1, 1) learns y = 2x from three points with MSELoss and plain SGD. The model
and the data are moved to `device`, which is CUDA when a GPU is available and the CPU otherwise.

    python examples/linear_regression.py               # 1000 epochs, as in the tutorial
    python examples/linear_regression.py --epochs 300
"""
import argparse

import minigrad as torch
import minigrad.nn as nn
import minigrad.optim as optim

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--epochs", type=int, default=1000, help="training epochs (default: 1000)")
parser.add_argument("--lr", type=float, default=0.01, help="SGD learning rate (default: 0.01)")
parser.add_argument("--seed", type=int, default=0, help="seed for the initial weights (default: 0)")
args = parser.parse_args()
torch.manual_seed(args.seed)


# define the model
class LinearRegression(nn.Module):
    def __init__(self):
        super(LinearRegression, self).__init__()
        self.linear = nn.Linear(1, 1)

    def forward(self, x):
        return self.linear(x)


# create the model
model = LinearRegression()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model.to(device)

# loss function and optimizer
criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=args.lr)

# the data: y = 2x
x = torch.tensor([[1.0], [2.0], [3.0]]).to(device)
y = torch.tensor([[2.0], [4.0], [6.0]]).to(device)

# train the model
num_epochs = args.epochs
log_every = max(1, num_epochs // 10)
for epoch in range(num_epochs):
    optimizer.zero_grad()
    outputs = model(x)
    loss = criterion(outputs, y)
    loss.backward()
    optimizer.step()
    if epoch % log_every == 0:
        print('Epoch [{}/{}], Loss: {:.4f}'.format(epoch + 1, num_epochs, loss.item()))

# the loss reported above is the one before each step; measure the trained model once more
with torch.no_grad():
    final_loss = criterion(model(x), y).item()
    prediction = model(torch.tensor([[4.0]]).to(device)).item()
print('Final loss: {:.6f}'.format(final_loss))
print('Learned weight: {:.4f}, bias: {:.4f} (the data follow y = 2x)'.format(
    model.linear.weight.item(), model.linear.bias.item()))
print('Prediction for x = 4: {:.4f}'.format(prediction))
