"""The floor: op chain, linreg and MLP as straight NumPy and as a bare engine, beside minigrad and PyTorch.

How close to PyTorch can a Python engine over NumPy get at all? For each workload this
times, in one process and alternating between them:

- numpy: the step written out as straight-line NumPy (forward, hand-derived backward,
  SGD update), with no graph and no objects: what any NumPy-backed engine must pay at least;
- bare: the leanest reverse-mode engine (``Tensor`` below): one output and one closure per
  op, a topological sort, closures run in reverse; no dtype promotion, devices, version
  counters, hooks or grad modes: the least Python-level dispatch can add;
- minigrad and PyTorch: cpu.py's workloads, unchanged.

A target below the numpy ratio cannot be met by any engine over NumPy on this machine; one
between the numpy and bare ratios only by doing less per op than the bare engine does.
Before timing, numpy, bare (and PyTorch) are checked against minigrad over a few steps.
"""
from dataclasses import dataclass, replace
from functools import partial
from typing import Callable

import numpy as np

from . import command_line, machine_lines
from .cpu import (AGREE_TOL, BY_NAME, CHECK_STEPS, LR, SEED, Workload, add_timing_arguments, array_diff,
                  thread_report, time_workload, trajectory)


# --- the numpy floor: builders (data) -> (step, state); step() trains once and returns the loss,
# state() the parameters then the gradients of the last step (the `.grad`s of the other engines)

def np_op_chain(data):
    params, grads = [data[k].copy() for k in "abc"], []

    def step():
        a, b, c = params
        r = np.maximum(a * b + c, 0)
        loss = (r * r).sum()
        dr = 2 * r  # already 0 where relu was off, so relu's mask is not needed
        grads[:] = dr * b, dr * a, dr
        return loss
    return step, lambda: params + grads


def np_linreg(data, lr=LR):
    x, y = data["x"], data["y"]
    params, grads = [data[k].copy() for k in "wb"], []

    def step():
        w, b = params
        r = x @ w.T + b - y
        loss = (r * r).mean()
        dr = r * (2 / r.size)
        gw, gb = dr.T @ x, dr.sum(0)
        w -= lr * gw  # in place: w is params[0]
        b -= lr * gb
        grads[:] = gw, gb
        return loss
    return step, lambda: params + grads


def np_mlp(data, lr=LR):
    x, y = data["x"], data["y"]
    rows = np.arange(len(y))
    params, grads = [data[k].copy() for k in ("w1", "b1", "w2", "b2")], []

    def step():
        w1, b1, w2, b2 = params
        z = x @ w1.T + b1
        h = np.maximum(z, 0)
        logits = h @ w2.T + b2
        shifted = logits - logits.max(1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(1, keepdims=True)
        loss = -(shifted - np.log(total))[rows, y].mean()
        dlogits = e / total  # softmax: d loss / d logits, less 1 at the picked class, over n
        dlogits[rows, y] -= 1
        dlogits /= len(y)
        dz = (dlogits @ w2) * (z > 0)
        gw1, gb1, gw2, gb2 = dz.T @ x, dz.sum(0), dlogits.T @ h, dlogits.sum(0)
        w1 -= lr * gw1
        b1 -= lr * gb1
        w2 -= lr * gw2
        b2 -= lr * gb2
        grads[:] = gw1, gb1, gw2, gb2
        return loss
    return step, lambda: params + grads


# --- the bare engine

def _unbroadcast(g, shape):
    """Sum g back to `shape` over the axes broadcasting added or stretched (the bias's batch axis)."""
    if g.shape == shape:
        return g
    while g.ndim > len(shape):
        g = g.sum(0)
    for axis, n in enumerate(shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis, keepdims=True)
    return g


def _product(a, b, like):
    """a @ b in the memory layout of `like`. The weight of `x @ w.t()` is a transposed view, so
    its gradient comes out transposed unless computed as (b.T @ a.T).T; and the SGD update
    with a transposed 256x784 gradient takes about 7 times as long as with a contiguous one."""
    if like.flags.f_contiguous and not like.flags.c_contiguous:
        return (b.T @ a.T).T
    return a @ b


class Tensor:
    """An array, its gradient, and how it was made: the closure that sends the output's gradient
    on to `parents`. `requires_grad` only marks the leaves to differentiate: without it the MLP
    would also pay for the input's gradient, a matmul as large as the forward one."""
    __slots__ = ("data", "grad", "requires_grad", "backward_fn", "parents")

    def __init__(self, data, requires_grad=False, parents=(), backward_fn=None):
        self.data, self.grad, self.requires_grad = data, None, requires_grad
        self.parents, self.backward_fn = parents, backward_fn

    def _accumulate(self, g):
        self.grad = g if self.grad is None else self.grad + g

    def _binary(self, other, data, backward_fn):
        return Tensor(data, self.requires_grad or other.requires_grad, (self, other), backward_fn)

    def _unary(self, data, backward_fn):
        # the closure only runs once the output has a gradient, so self wants one: no check needed
        return Tensor(data, self.requires_grad, (self,), backward_fn)

    # A binary op's closure asks each operand whether it wants a gradient before computing it:
    # one of them is often a constant (the input x, the targets y).

    def __add__(self, other):
        def backward(g):
            if self.requires_grad:
                self._accumulate(_unbroadcast(g, self.data.shape))
            if other.requires_grad:
                other._accumulate(_unbroadcast(g, other.data.shape))
        return self._binary(other, self.data + other.data, backward)

    def __sub__(self, other):
        def backward(g):
            if self.requires_grad:
                self._accumulate(_unbroadcast(g, self.data.shape))
            if other.requires_grad:
                other._accumulate(_unbroadcast(-g, other.data.shape))
        return self._binary(other, self.data - other.data, backward)

    def __mul__(self, other):
        def backward(g):
            if self.requires_grad:
                self._accumulate(_unbroadcast(g * other.data, self.data.shape))
            if other.requires_grad:
                other._accumulate(_unbroadcast(g * self.data, other.data.shape))
        return self._binary(other, self.data * other.data, backward)

    def __matmul__(self, other):  # 2-D only
        def backward(g):
            if self.requires_grad:
                self._accumulate(_product(g, other.data.T, self.data))
            if other.requires_grad:
                other._accumulate(_product(self.data.T, g, other.data))
        return self._binary(other, self.data @ other.data, backward)

    def __neg__(self):
        return self._unary(-self.data, lambda g: self._accumulate(-g))

    def __pow__(self, exponent):
        if exponent != 2:
            raise NotImplementedError("the bare engine only squares")
        return self._unary(self.data * self.data, lambda g: self._accumulate(2 * self.data * g))

    def relu(self):
        out = np.maximum(self.data, 0)
        return self._unary(out, lambda g: self._accumulate(g * (out > 0)))

    def t(self):
        return self._unary(self.data.T, lambda g: self._accumulate(g.T))

    def sum(self):
        return self._unary(self.data.sum(), lambda g: self._accumulate(np.full_like(self.data, g)))

    def mean(self):
        n = self.data.size
        return self._unary(self.data.mean(), lambda g: self._accumulate(np.full_like(self.data, g / n)))

    def log_softmax(self):  # over axis 1
        shifted = self.data - self.data.max(1, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        return self._unary(out, lambda g: self._accumulate(g - np.exp(out) * g.sum(1, keepdims=True)))

    def __getitem__(self, index):
        def backward(g):
            full = np.zeros_like(self.data)
            np.add.at(full, index, g)  # add.at, not `full[index] = g`: an index may repeat
            self._accumulate(full)
        return self._unary(self.data[index], backward)

    def item(self):
        return self.data.item()

    def backward(self):
        """Order the graph so that each tensor comes after everything it was made from, then
        run the closures from the loss back. As in PyTorch only leaves keep their .grad: an
        intermediate's is dropped once passed on, which also lowers the step's peak memory
        (keeping them costs the MLP ~15 page faults per step, the SGD update faulting in
        memory that glibc handed back to the OS)."""
        order, seen = [], set()

        def visit(t):
            if t not in seen:
                seen.add(t)
                for parent in t.parents:
                    visit(parent)
                order.append(t)
        visit(self)
        self.grad = np.ones_like(self.data)
        for t in reversed(order):
            if t.backward_fn is not None and t.grad is not None:
                t.backward_fn(t.grad)
                t.grad = None


def bare_sgd(params, lr):
    for p in params:
        p.data -= lr * p.grad


def _bare_state(params):
    return lambda: [p.data for p in params] + [p.grad for p in params]


def bare_op_chain(data):
    a, b, c = params = [Tensor(data[k].copy(), True) for k in "abc"]

    def step():
        a.grad = b.grad = c.grad = None
        out = ((a * b + c).relu() ** 2).sum()
        out.backward()
        return out
    return step, _bare_state(params)


def bare_linreg(data, lr=LR):
    x, y = Tensor(data["x"]), Tensor(data["y"])
    w, b = params = [Tensor(data[k].copy(), True) for k in "wb"]

    def step():
        w.grad = b.grad = None
        loss = ((x @ w.t() + b - y) ** 2).mean()
        loss.backward()
        bare_sgd(params, lr)
        return loss
    return step, _bare_state(params)


def bare_mlp(data, lr=LR):
    x, y = Tensor(data["x"]), data["y"]
    rows = np.arange(len(y))
    w1, b1, w2, b2 = params = [Tensor(data[k].copy(), True) for k in ("w1", "b1", "w2", "b2")]

    def step():
        for p in params:
            p.grad = None
        h = (x @ w1.t() + b1).relu()
        logits = h @ w2.t() + b2
        loss = -logits.log_softmax()[rows, y].mean()
        loss.backward()
        bare_sgd(params, lr)
        return loss
    return step, _bare_state(params)


# --- checking and timing

@dataclass(frozen=True)
class Floor:
    workload: Workload  # cpu.py's, run by minigrad and PyTorch
    numpy: Callable  # data -> (step, state)
    bare: Callable  # data -> (step, state)


FLOORS = {f.workload.name: f for f in (Floor(BY_NAME["opchain"], np_op_chain, bare_op_chain),
                                       Floor(BY_NAME["linreg"], np_linreg, bare_linreg),
                                       Floor(BY_NAME["mlp"], np_mlp, bare_mlp))}


def floor_trajectory(build, data, steps=CHECK_STEPS):
    """cpu.trajectory for a (step, state) builder: losses, then parameters and gradients, as float64."""
    step, state = build(data)
    losses = [step().item() for _ in range(steps)]
    return [np.array(losses)] + [np.asarray(a, np.float64) for a in state()]


def disagreement(floor, data, torch=None):
    """Max abs diff against minigrad after CHECK_STEPS steps of numpy, bare (and torch)."""
    import minigrad
    want = trajectory(floor.workload, minigrad, data)
    diffs = {"numpy": array_diff(want, floor_trajectory(floor.numpy, data)),
             "bare": array_diff(want, floor_trajectory(floor.bare, data))}
    if torch is not None:
        diffs["torch"] = array_diff(want, trajectory(floor.workload, torch, data))
    return diffs


def time_floor(floor, data, torch, repeat, target_s):
    """cpu.time_workload over the four builders: {name: (median s/step, median page faults/step)}."""
    import minigrad
    builders = {"numpy": floor.numpy, "bare": floor.bare, "minigrad": partial(floor.workload.build, minigrad)}
    if torch is not None:
        builders["torch"] = partial(floor.workload.build, torch)
    as_libs = replace(floor.workload, build=lambda build, data: build(data))
    return time_workload(as_libs, builders, data, repeat, target_s)


def verdict(name, target, ratios):
    rn, rb = ratios["numpy"], ratios["bare"]
    if target < rn:
        return f"{name}: target {target} is below the numpy floor's ratio {rn:.2f}: no engine over NumPy meets it here"
    if target < rb:
        return (f"{name}: target {target} is above the numpy floor's ratio {rn:.2f} but below the bare "
                f"engine's {rb:.2f}: only an engine doing less per op than the bare one meets it")
    return (f"{name}: target {target} is above both the numpy floor's ratio {rn:.2f} and the bare "
            f"engine's {rb:.2f}: the bare engine meets it")


def add_arguments(parser):
    add_timing_arguments(parser, FLOORS)


def run(args):
    try:
        import torch
        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    repeat = args.repeat or (3 if args.quick else 7)
    target_s = 0.02 if args.quick else 0.2
    floors = [FLOORS[n] for n in args.workload or FLOORS]

    print(f"## the floor: NumPy, a bare engine, minigrad and PyTorch, CPU\n\ncommand: `{command_line()}`")
    for line in machine_lines(torch):
        print(line)
    print(f"threads: {thread_report(torch)}")
    print(f"timing: median of {repeat} repeats of ~{target_s * 1e3:.0f} ms per engine, after warm-up; "
          f"agreement: max abs diff from minigrad of losses, parameters and gradients after {CHECK_STEPS} steps\n")
    if torch is None:
        print("note: torch is not installed, so there are no ratios and no verdicts\n")

    print("| workload | numpy µs/step | bare µs/step | minigrad µs/step | PyTorch µs/step | numpy/PT | bare/PT "
          "| minigrad/PT | target | max abs diff vs minigrad (numpy / bare / PT) | page faults/step |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    failed, verdicts = False, []
    for floor in floors:
        w = floor.workload
        data, diff = w.make_data(np.random.default_rng(SEED)), "-"
        try:
            diffs = disagreement(floor, data, torch)
            diff = " / ".join(f"{d:.1e}" for d in diffs.values())
            if not all(d <= AGREE_TOL for d in diffs.values()):  # `not <=` also catches NaN
                failed = True
                diff += " DISAGREE"
            times = time_floor(floor, data, torch, repeat, target_s)
        except Exception as e:  # keep the other rows
            failed = True
            print(f"| {w.title} | ERROR {type(e).__name__}: {e} | | | | | | | <= {w.target} | {diff} | |")
            continue
        us = [f"{times[k][0] * 1e6:.1f}" if k in times else "-" for k in ("numpy", "bare", "minigrad", "torch")]
        ratios = {k: t / times["torch"][0] for k, (t, _) in times.items()} if "torch" in times else {}
        shown = [f"{ratios[k]:.2f}" if ratios else "-" for k in ("numpy", "bare", "minigrad")]
        faults = " / ".join("-" if f is None else f"{f:.1f}" for _, f in times.values())
        print(f"| {w.title} | {' | '.join(us)} | {' | '.join(shown)} | <= {w.target} | {diff} | {faults} |")
        if ratios:
            verdicts.append(verdict(w.name, w.target, ratios))
    print("\nratio = time per step / PyTorch's time per step (lower is faster); numpy: the step as straight-line "
          "NumPy; bare: the leanest reverse-mode engine over NumPy; page faults: minor faults per step, "
          "numpy / bare / minigrad / PT")
    if verdicts:
        print()
        for line in verdicts:
            print(f"- {line}")
    return 1 if failed else 0
