"""Handwritten digits: the tutorial's MLP 784-256-10, trained on real MNIST images.

The 5,000 images (500 per digit) ship with the repository in examples/data/mnist_5k.npz
(see examples/data/README.md for their origin and license), so nothing is downloaded.
4,000 of them train the network and the other 1,000 are held out to measure its accuracy.
A progress bar on stderr follows each epoch, and the loss curve is saved as an SVG drawing.

    python examples/mnist_mlp.py                       # 5 epochs, plot in mnist_loss.svg
    python examples/mnist_mlp.py --epochs 3 --no-progress --plot loss.svg --save mlp.pt
"""
import argparse
import os
import sys
import time
from xml.sax.saxutils import escape

import numpy as np

import minigrad as torch
import minigrad.nn as nn
import minigrad.optim as optim
from minigrad.utils.data import DataLoader, TensorDataset

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mnist_5k.npz")

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--epochs", type=int, default=5, help="passes over the training images (default: 5)")
parser.add_argument("--batch-size", type=int, default=64, help="batch size (default: 64)")
parser.add_argument("--lr", type=float, default=0.05, help="SGD learning rate (default: 0.05)")
parser.add_argument("--momentum", type=float, default=0.9, help="SGD momentum (default: 0.9)")
parser.add_argument("--held-out", type=int, default=1000, help="images kept out of training (default: 1000)")
parser.add_argument("--seed", type=int, default=0, help="seed of the split, the weights and the shuffling")
parser.add_argument("--data", default=DATA, help="the .npz file with 'images' and 'labels'")
parser.add_argument("--plot", default="mnist_loss.svg", help="where to save the loss curve (default: mnist_loss.svg)")
parser.add_argument("--save", metavar="PATH", help="also save the trained model's state_dict here")
parser.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
args = parser.parse_args()
if args.epochs < 1:
    parser.error("--epochs must be at least 1")
if not 0 < args.held_out < 5000:
    parser.error("--held-out must be between 1 and 4999")
torch.manual_seed(args.seed)


class ProgressBar:
    """One line on stderr, redrawn with '\\r' after every batch: bar, batches done, loss, speed."""

    def __init__(self, total, label, enabled=True, width=30, stream=sys.stderr):
        self.total, self.label, self.enabled, self.width, self.stream = total, label, enabled, width, stream
        self.done, self.start = 0, time.perf_counter()

    def update(self, loss):
        self.done += 1
        if self.enabled:
            self._draw("loss {:.4f}".format(loss))

    def _draw(self, text, end=""):
        filled = self.width * self.done // self.total
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        self.stream.write("\r{} |{}{}| {}/{} {} {:.1f} it/s{}".format(
            self.label, "#" * filled, "-" * (self.width - filled), self.done, self.total, text,
            self.done / elapsed, end))
        self.stream.flush()

    def close(self, mean_loss):
        if self.enabled:
            self._draw("mean loss {:.4f}".format(mean_loss), end=", {:.1f} s\n".format(time.perf_counter() - self.start))


def nice_ticks(lo, hi, count=5):
    """Round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi]."""
    raw = (hi - lo) / count if hi > lo else 1.0
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = np.floor(lo / step) * step
    return [first + i * step for i in range(int(np.ceil((hi - first) / step - 1e-9)) + 1)]


def save_loss_svg(path, step_losses, epoch_means, steps_per_epoch, title):
    """A line chart of the loss after every step and the mean of every epoch, written as SVG by hand."""
    width, height, left, right, top, bottom = 720, 420, 70, 20, 40, 55
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(step_losses)
    xticks = [t for t in nice_ticks(0, n) if t <= n]
    yticks = nice_ticks(0, max(step_losses))
    x_max, y_max = n, yticks[-1]

    def px(step):
        return left + plot_w * step / x_max

    def py(value):
        return top + plot_h * (1 - value / y_max)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" '
           'font-family="sans-serif" font-size="12">'.format(width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>'.format(width / 2, escape(title))]
    for t in xticks:  # vertical grid lines and x tick labels
        x = px(t)
        out.append('<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#e5e5e5"/>'.format(x, top, top + plot_h))
        out.append('<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="black"/>'.format(
            x, top + plot_h, top + plot_h + 5))
        out.append('<text x="{:.1f}" y="{}" text-anchor="middle">{:g}</text>'.format(x, top + plot_h + 18, t))
    for t in yticks:  # horizontal grid lines and y tick labels
        y = py(t)
        out.append('<line x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}" stroke="#e5e5e5"/>'.format(y, left, left + plot_w))
        out.append('<line x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}" stroke="black"/>'.format(y, left - 5, left))
        out.append('<text x="{}" y="{:.1f}" text-anchor="end">{:g}</text>'.format(left - 8, y + 4, round(t, 10)))
    out.append('<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="black"/>'.format(left, top, top + plot_h))
    out.append('<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="black"/>'.format(left, top + plot_h, left + plot_w))
    out.append('<text x="{}" y="{}" text-anchor="middle">training step (batch)</text>'.format(
        left + plot_w / 2, height - 12))
    out.append('<text transform="translate(18 {}) rotate(-90)" text-anchor="middle">cross-entropy loss</text>'.format(
        top + plot_h / 2))

    for e in range(1, len(epoch_means)):  # dashed lines between epochs
        out.append('<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#aaaaaa" stroke-dasharray="4 3"/>'.format(
            px(e * steps_per_epoch), top, top + plot_h))

    # the loss of step i is drawn at x = i (steps count from 1); an epoch's mean at its middle
    steps = " ".join("{:.1f},{:.1f}".format(px(i + 1), py(v)) for i, v in enumerate(step_losses))
    out.append('<polyline fill="none" stroke="#9ecae1" stroke-width="1" points="{}"/>'.format(steps))
    centers = [(e + 0.5) * steps_per_epoch for e in range(len(epoch_means))]
    means = " ".join("{:.1f},{:.1f}".format(px(c), py(v)) for c, v in zip(centers, epoch_means))
    out.append('<polyline fill="none" stroke="#d62728" stroke-width="2" points="{}"/>'.format(means))
    for c, v in zip(centers, epoch_means):
        out.append('<circle cx="{:.1f}" cy="{:.1f}" r="3.5" fill="#d62728"/>'.format(px(c), py(v)))

    lx, ly = left + plot_w - 170, top + 12  # legend
    out.append('<rect x="{}" y="{}" width="165" height="44" fill="white" stroke="#bbbbbb"/>'.format(lx - 8, ly - 8))
    out.append('<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#9ecae1" stroke-width="2"/>'.format(lx, ly + 4, lx + 24))
    out.append('<text x="{}" y="{}">loss of each step</text>'.format(lx + 32, ly + 8))
    out.append('<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#d62728" stroke-width="2"/>'.format(lx, ly + 24, lx + 24))
    out.append('<circle cx="{}" cy="{}" r="3.5" fill="#d62728"/>'.format(lx + 12, ly + 24))
    out.append('<text x="{}" y="{}">mean of each epoch</text>'.format(lx + 32, ly + 28))
    out.append('</svg>')
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


# ---- the data -----------------------------------------------------------------------------------
with np.load(args.data, allow_pickle=False) as data:
    images, labels = data["images"], data["labels"]          # uint8 (5000, 784), uint8 (5000,)
# pixels scaled to [0, 1], then normalized with MNIST's mean and standard deviation
images = (images.astype(np.float32) / 255.0 - 0.1307) / 0.3081
labels = labels.astype(np.int64)
order = np.random.default_rng(args.seed).permutation(len(labels))   # a fixed, seeded split
test_idx, train_idx = order[:args.held_out], order[args.held_out:]

train_set = TensorDataset(torch.from_numpy(images[train_idx]), torch.from_numpy(labels[train_idx]))
train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
test_images = torch.from_numpy(images[test_idx])
test_labels = torch.from_numpy(labels[test_idx])
print("MNIST subset: {} training and {} held-out images of 28x28 pixels".format(len(train_idx), len(test_idx)))


# ---- the model: the tutorial's NeuralNetwork ---------------------------------------------------------
class NeuralNetwork(nn.Module):
    def __init__(self):
        super(NeuralNetwork, self).__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = self.fc2(x)
        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = NeuralNetwork().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
test_images, test_labels = test_images.to(device), test_labels.to(device)
print("Training on", device)


def held_out_accuracy():
    model.eval()
    with torch.no_grad():
        predicted = model(test_images).argmax(dim=1)
        correct = (predicted == test_labels).sum().item()
    model.train()
    return correct


# ---- training -------------------------------------------------------------------------------------
step_losses, epoch_means = [], []
start = time.perf_counter()
for epoch in range(args.epochs):
    bar = ProgressBar(len(train_loader), "epoch {}/{}".format(epoch + 1, args.epochs), enabled=not args.no_progress)
    epoch_losses = []
    for inputs, targets in train_loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        epoch_losses.append(loss.item())
        bar.update(epoch_losses[-1])
    epoch_means.append(sum(epoch_losses) / len(epoch_losses))
    step_losses.extend(epoch_losses)
    bar.close(epoch_means[-1])
    print("Epoch [{}/{}], mean loss: {:.4f}, held-out accuracy: {:.4f}".format(
        epoch + 1, args.epochs, epoch_means[-1], held_out_accuracy() / len(test_idx)))
elapsed = time.perf_counter() - start

correct = held_out_accuracy()
epochs_text = "1 epoch" if args.epochs == 1 else "{} epochs".format(args.epochs)
print("Trained for {} in {:.1f} s".format(epochs_text, elapsed))
print("Held-out accuracy: {:.4f} ({}/{})".format(correct / len(test_idx), correct, len(test_idx)))

save_loss_svg(args.plot, step_losses, epoch_means, len(train_loader),
              "MNIST MLP 784-256-10: training loss over " + epochs_text)
print("Loss curve saved to", args.plot)
if args.save:
    torch.save(model.state_dict(), args.save)
    print("Model state_dict saved to", args.save)
