"""The tutorial's multi-GPU program: an MLP 784-256-10 wrapped in nn.DataParallel.

With more than one GPU, nn.DataParallel copies the model to every GPU, splits each batch
between the copies, runs them, and gathers the outputs (and, in backward, sums the
gradients back into the original model). With one GPU or none, the model runs as it is.
The data are random, so the network only memorises its single batch: the loss falls
towards zero.

`--cpu-replicas` shows the DataParallel path on a machine without GPUs: the model is
wrapped with device_ids=["cpu", "cpu"], so each batch is split into two halves that run
through two replicas of the model on the CPU.

    python examples/mlp_data_parallel.py                 # 100 epochs (the tutorial runs 1000)
    python examples/mlp_data_parallel.py --cpu-replicas --epochs 20
"""
import argparse

import minigrad as torch
import minigrad.nn as nn
import minigrad.optim as optim

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--epochs", type=int, default=100, help="training epochs (default: 100)")
parser.add_argument("--lr", type=float, default=0.01, help="SGD learning rate (default: 0.01)")
parser.add_argument("--cpu-replicas", action="store_true",
                    help='wrap the model in nn.DataParallel(model, device_ids=["cpu", "cpu"])')
parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
args = parser.parse_args()
torch.manual_seed(args.seed)


# define the model
class NeuralNetwork(nn.Module):
    def __init__(self):
        super(NeuralNetwork, self).__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = self.fc2(x)
        return x


# create the model
model = NeuralNetwork()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
elif args.cpu_replicas:
    device = torch.device("cpu")
    model = nn.DataParallel(model, device_ids=["cpu", "cpu"])
model.to(device)
if isinstance(model, nn.DataParallel):
    print("DataParallel over", ", ".join(str(d) for d in model.device_ids))
else:
    print("Single device:", device)

# loss function and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=args.lr)

# the data: one random batch of 64 "images" with random labels
x = torch.randn(64, 784).to(device)
y = torch.randint(0, 10, (64,)).to(device)

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

with torch.no_grad():
    outputs = model(x)
    final_loss = criterion(outputs, y).item()
    accuracy = (outputs.argmax(dim=1) == y).float().mean().item()
print('Final loss: {:.4f}, accuracy on the batch: {:.2f}'.format(final_loss, accuracy))
