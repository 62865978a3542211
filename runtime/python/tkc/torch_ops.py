"""tk kernels inside torch.compile'd code: `custom_op` registers a function that launches tk
kernels on torch tensors as a torch custom operator (torch.library), so that torch.compile calls
it as one opaque node, with no graph break, and torch's fake tensors know its outputs.

    import tkc, tkc.torch_ops
    softmax_kernel = tkc.load("examples/softmax.tk").softmax

    @tkc.torch_ops.custom_op("mylib::softmax")
    def softmax(x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0))
        return y

    torch.compile(lambda x: softmax(x) * 2, fullgraph=True)(x)

The outputs' shapes, dtypes and devices come from `fake` when it is given (a function of the
same arguments returning empty tensors), else each output is taken to be like the first tensor
argument (`torch.empty_like`), which suits elementwise and row-wise kernels. Launches go on
torch's current stream (tkc's default), which is what torch.compile's generated code uses.
"""
import torch


def _returns_nothing(*args, **kwargs):
    return None


def _like_first_tensor(*args, **kwargs):
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, torch.Tensor):
            return torch.empty_like(value)
    raise TypeError("tkc.torch_ops.custom_op: no tensor argument to take the output's shape from; give fake=")


def custom_op(name, *, mutates_args=(), fake=None, device_types="cuda"):
    """A decorator: `fn`, type-annotated as torch.library.custom_op requires, as the operator
    `name` ("namespace::op"). `mutates_args` names the arguments the kernels write in place."""

    def register(fn):
        op = torch.library.custom_op(name, mutates_args=mutates_args, device_types=device_types)(fn)
        returns = getattr(fn, "__annotations__", {}).get("return", torch.Tensor)
        default = _returns_nothing if returns is None or returns is type(None) else _like_first_tensor
        op.register_fake(fake if fake is not None else default)
        return op

    return register
