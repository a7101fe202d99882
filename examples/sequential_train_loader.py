"""An nn.Sequential 10-5-2 classifier trained over a train_loader, from the tutorial's practical guide.

The tutorial leaves `train_loader` to the reader; here it is a DataLoader over a TensorDataset
of 1,000 random 10-feature points whose label says whether their features sum to more than 0.
Each batch is moved to `device` before the forward pass, as the tutorial does.

    python examples/sequential_train_loader.py                # 20 epochs, lr 0.1
    python examples/sequential_train_loader.py --epochs 3 --lr 0.001
"""
import argparse

import minigrad as torch
import minigrad.nn as nn
import minigrad.optim as optim
from minigrad.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--epochs", type=int, default=20, help="passes over the data (default: 20)")
parser.add_argument("--lr", type=float, default=0.1,
                    help="SGD learning rate (default: 0.1; the tutorial's 0.001 needs many more epochs)")
parser.add_argument("--batch-size", type=int, default=32, help="batch size (default: 32)")
parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
args = parser.parse_args()
torch.manual_seed(args.seed)

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
print('Using device:', device)

# the data: the label is 1 when the ten features sum to more than 0
inputs = torch.randn(1000, 10)
labels = (inputs.sum(dim=1) > 0).long()
train_loader = DataLoader(TensorDataset(inputs, labels), batch_size=args.batch_size, shuffle=True)

# define the model
model = nn.Sequential(
    nn.Linear(10, 5),
    nn.ReLU(),
    nn.Linear(5, 2)
)

# move the model to the device
model.to(device)

# loss function and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=args.lr)


def accuracy():
    with torch.no_grad():
        predicted = model(inputs.to(device)).argmax(dim=1)
        return (predicted == labels.to(device)).float().mean().item()


print('Accuracy before training: {:.3f}'.format(accuracy()))

# train the model on the device, one batch of the loader at a time
for epoch in range(args.epochs):
    total, batches = 0.0, 0
    for inputs_batch, labels_batch in train_loader:
        inputs_batch, labels_batch = inputs_batch.to(device), labels_batch.to(device)
        optimizer.zero_grad()
        outputs = model(inputs_batch)
        loss = criterion(outputs, labels_batch)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
    print('Epoch [{}/{}], mean loss: {:.4f}'.format(epoch + 1, args.epochs, total / batches))

print('Accuracy after training: {:.3f}'.format(accuracy()))
