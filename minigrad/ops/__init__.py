"""Differentiable ops, each written once against the backend contract (backends/__init__.py).

Every op is an autograd.Function whose forward computes on the inputs' backend arrays and
whose backward is written in Tensor ops, so that create_graph=True differentiates it again.
"""
