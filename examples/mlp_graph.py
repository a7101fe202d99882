"""The graph of one training step of the MLP 784-256-10, drawn with its parameters' names and
gradient norms, each module's ops in a box named after the module.

    python examples/mlp_graph.py [OUT_DIR]

writes OUT_DIR/mlp_graph.svg and .png (default: the current directory); without Graphviz's
`dot` program (`apt install graphviz`, `brew install graphviz`) it writes the DOT source,
mlp_graph.gv, instead.
"""
import argparse
import os

import minigrad as torch
import minigrad.nn as nn
from minigrad.viz import GraphvizNotInstalled, make_dot

parser = argparse.ArgumentParser(description="draw the graph of an MLP 784-256-10")
parser.add_argument("out_dir", nargs="?", default=".",
                    help="where to write mlp_graph.svg and .png (default: the current directory)")
args = parser.parse_args()
torch.manual_seed(0)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super(NeuralNetwork, self).__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = self.fc2(x)
        return x


model = NeuralNetwork()
criterion = nn.CrossEntropyLoss()
inputs = torch.randn(64, 784)
labels = torch.randint(0, 10, (64,))

loss = criterion(model(inputs), labels)
loss.backward()
print("loss", loss.item())
for name, p in model.named_parameters():
    print(f"{name:10s} {str(tuple(p.shape)):11s} grad norm {(p.grad ** 2).sum().sqrt().item():.3g}")

# params names the leaves; show_grads adds each one's gradient norm (a vanishing or exploding
# gradient is outlined in red); group_modules boxes the ops of each module's forward
try:
    dot = make_dot(loss, params=dict(model.named_parameters()), show_grads=True, group_modules=True)
except ImportError as e:  # the graphviz Python package: pip install graphviz
    print("note:", e)
else:
    os.makedirs(args.out_dir, exist_ok=True)
    stem = os.path.join(args.out_dir, "mlp_graph")
    try:
        for fmt in ("svg", "png"):
            print("Graph written to", dot.render(stem, format=fmt, cleanup=True))
    except GraphvizNotInstalled as e:
        print("note:", e)
        print("Graph source written to", dot.save(stem + ".gv"))
