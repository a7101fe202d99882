"""The dynamic computation graph and device handling from the PyTorch tutorial, run on minigrad.

Every operation on a tensor that requires grad adds a node to a graph built as the code runs;
`backward()` walks it from the output back to the inputs. `minigrad.viz.make_dot` draws it:

    python examples/dynamic_graph.py [OUT_DIR]

writes the graph to OUT_DIR/dynamic_graph.svg and .png (default: the current directory); without
Graphviz's `dot` program (`apt install graphviz`, `brew install graphviz`) it writes the DOT
source, dynamic_graph.gv, instead.
"""
import argparse
import os
import time

import minigrad as torch
from minigrad.viz import GraphvizNotInstalled, make_dot

parser = argparse.ArgumentParser(description="seed 003: the dynamic graph, drawn, and devices")
parser.add_argument("out_dir", nargs="?", default=".",
                    help="where to write dynamic_graph.svg and .png (default: the current directory)")
args = parser.parse_args()

# only floating-point tensors can have gradients
x = torch.arange(1, 4, dtype=torch.float32, requires_grad=True)
print("X", x)

a = x + 2
b = a ** 2
c = b + 3
y = c.mean()
print("Y", y)

# the graph x -> +2 -> **2 -> +3 -> mean, with each op's arguments and the tensors it saved
# for backward (drawn before backward() frees them)
try:
    dot = make_dot(y, params={"x": x}, show_attrs=True, show_saved=True)
except ImportError as e:  # the graphviz Python package: pip install graphviz
    print("note:", e)
else:
    os.makedirs(args.out_dir, exist_ok=True)
    stem = os.path.join(args.out_dir, "dynamic_graph")
    try:
        for fmt in ("svg", "png"):
            print("Graph written to", dot.render(stem, format=fmt, cleanup=True))
    except GraphvizNotInstalled as e:
        print("note:", e)
        print("Graph source written to", dot.save(stem + ".gv"))

# y = mean((x + 2)^2 + 3), so dy/dx = 2 (x + 2) / 3
y.backward()
print("X.grad", x.grad)

gpu_avail = torch.cuda.is_available()
print("Is the GPU available? %s" % str(gpu_avail))

device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
print("Device", device)
x = x.to(device)
print("X", x)


def time_matmul(dev, repeat=3):
    """Seconds for one 1000x1000 matmul on dev (best of a few, after a warm-up)."""
    m = torch.randn(1000, 1000, device=dev)
    (m @ m).sum().item()  # warm-up; item() also waits for an asynchronous device to finish
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        (m @ m).sum().item()
        best = min(best, time.perf_counter() - start)
    return best


print("CPU time: %.5fs" % time_matmul(torch.device("cpu")))
if gpu_avail:
    print("GPU time: %.5fs" % time_matmul(torch.device("cuda")))
else:
    print("GPU time: skipped (no CUDA GPU available)")
