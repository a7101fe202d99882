"""Time a 1000x1000 matrix multiplication with torch.mm on the CPU and, when there is one, on the GPU.

GPU work is asynchronous: a call returns once the kernel is queued. The GPU time is therefore
measured with CUDA events recorded around the multiplications, after a warm-up (the first
call also compiles and loads the kernel) and a torch.cuda.synchronize(). Without a CUDA GPU
the program prints the CPU time and says that the GPU part was skipped.

    python examples/matmul_cpu_vs_gpu.py
    python examples/matmul_cpu_vs_gpu.py --size 2000 --repeat 5
"""
import argparse
import time

import minigrad as torch

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--size", type=int, default=1000, help="n for n x n matrices (default: 1000)")
parser.add_argument("--repeat", type=int, default=10, help="multiplications per timing (default: 10)")
args = parser.parse_args()
n, repeat = args.size, args.repeat
torch.manual_seed(0)

# ---- CPU ------------------------------------------------------------------------------------
a = torch.randn(n, n)
b = torch.randn(n, n)
torch.mm(a, b)  # warm-up
start = time.perf_counter()
for _ in range(repeat):
    c = torch.mm(a, b)
cpu_ms = (time.perf_counter() - start) * 1000 / repeat
print("CPU: torch.mm of two {0}x{0} float32 matrices: {1:.3f} ms".format(n, cpu_ms))

# ---- GPU ------------------------------------------------------------------------------------
if torch.cuda.is_available():
    device = torch.device("cuda")
    a_gpu, b_gpu = a.to(device), b.to(device)
    torch.mm(a_gpu, b_gpu)  # warm-up: compiles and loads the kernel
    torch.cuda.synchronize()

    start_event = torch.cuda.Event(enable_timing=True)
    end_event = torch.cuda.Event(enable_timing=True)
    start_event.record()
    for _ in range(repeat):
        c_gpu = torch.mm(a_gpu, b_gpu)
    end_event.record()
    torch.cuda.synchronize()  # wait until the queued kernels have finished
    gpu_ms = start_event.elapsed_time(end_event) / repeat
    print("GPU ({}): torch.mm: {:.3f} ms".format(torch.cuda.get_device_name(0), gpu_ms))
    print("Speed-up of the GPU over the CPU: {:.3g}x".format(cpu_ms / gpu_ms))

    # same numbers on both devices, up to float32 rounding in a different summation order
    diff = (c_gpu.cpu() - c).abs().max().item()
    print("Largest difference between the two results: {:.2e}".format(diff))
else:
    print("GPU: skipped (no CUDA GPU available)")
