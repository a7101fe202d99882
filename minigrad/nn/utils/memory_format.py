"""convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format: the weights of every
Conv2d/ConvTranspose2d (Conv3d/ConvTranspose3d) in a module tree re-laid out in a memory format,
in place (the Parameter objects stay; their data changes layout)."""


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        from ...autograd.grad_mode import no_grad
        with no_grad():
            module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    from ..modules import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    from ..modules import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
