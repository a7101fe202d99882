from setuptools import setup

setup(
    name="minigrad",
    version="0.1.0",
    description="A teaching-size deep-learning engine with PyTorch's API and its own CUDA kernels",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.10",
    packages=["minigrad", "minigrad.autograd", "minigrad.backends", "minigrad.ops", "minigrad.bench",
              "minigrad.kernels", "minigrad.distributions", "minigrad.nn", "minigrad.nn.modules",
              "minigrad.nn.utils", "minigrad.optim", "minigrad.utils", "minigrad.utils.data"],
    # the CUDA C sources live in the top-level kernels/ folder and ship as package data
    package_dir={"minigrad.kernels": "kernels"},
    package_data={"minigrad.kernels": ["*.cu", "*.cuh"]},
    include_package_data=True,
    install_requires=["numpy>=2.1"],
    extras_require={
        "test": ["pytest>=7", "graphviz>=0.20", "cuda-bindings>=12", "nvidia-cuda-nvrtc>=12"],
        "cuda": ["cupy-cuda13x>=13"],
        "viz": ["graphviz>=0.20"],
    },
)
