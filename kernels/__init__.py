"""CUDA C sources of minigrad's GPU backend (loaded with cupy.RawModule)."""
